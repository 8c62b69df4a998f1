// Project integrations: list the active ones, create or edit one (PUT, the spec's required parameters of its kind
// checked), read its settings, remove it.
//
// Every call needs a token (401), a project the caller can see (404) and Maintainer or Owner access (403). A slug the
// sandbox does not know is 404. The spec does not show the settings record of GET one: the sandbox answers the list
// entry plus `properties`, every stored parameter as sent, credentials included — the worst a client must expect, so
// that forgeops' redaction is tested against it. DELETE answers 204 whether or not the integration was active.
// The service answers the same routes under /integrations (its current name; /services is the older one the spec
// uses), and clients such as python-gitlab call only that one.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import {
  defaultEvents,
  EVENT_FLAGS,
  INTEGRATION_KINDS,
  type EventFlag,
  type IntegrationKind,
  type StoredIntegration,
} from './state.js';
import { param } from '../../core/params.js';
import type { Router, SandboxRequest } from '../../core/router.js';
import { ACCESS, type Project } from '../../core/store.js';
import { integrationStateOf } from './state.js';

const BRANCHES = ['all', 'default', 'protected', 'default_and_protected'] as const;

function paramsOf(kind: IntegrationKind) {
  const shape: Record<string, z.ZodType> = {};
  for (const p of kind.params) {
    const type = p.type === 'boolean' ? param.boolean() : p.type === 'branches' ? param.enum(BRANCHES) : z.string();
    shape[p.name] = p.required ? type : type.optional();
  }
  return z.object(shape);
}

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  const active = integrationStateOf(store).active;

  function projectOf(req: SandboxRequest<unknown>): Project {
    ctx.requireUser(req);
    return ctx.findProjectFor(req, req.pathParams.id, { minAccess: ACCESS.maintainer });
  }

  function entry(kind: IntegrationKind, stored: StoredIntegration | undefined) {
    return {
      id: stored?.id ?? null,
      title: kind.title,
      slug: kind.slug,
      created_at: stored ? stored.created_at.toISOString() : null,
      updated_at: stored ? stored.updated_at.toISOString() : null,
      active: stored !== undefined,
      ...(stored?.events ?? defaultEvents()),
    };
  }

  const settings = (kind: IntegrationKind, stored: StoredIntegration | undefined) => ({
    ...entry(kind, stored),
    properties: { ...stored?.properties },
  });

  for (const base of ['/projects/:id/services', '/projects/:id/integrations']) {
    router.route('GET', base, { auth: 'user' }, (req, reply) => {
      const project = projectOf(req);
      reply.json(
        INTEGRATION_KINDS.flatMap((kind) => {
          const stored = active.get(`${project.id}:${kind.slug}`);
          return stored ? [entry(kind, stored)] : [];
        }),
      );
    });

    for (const kind of INTEGRATION_KINDS) {
      const path = `${base}/${kind.slug}`;

      router.route('PUT', path, { params: paramsOf(kind), auth: 'user' }, (req, reply) => {
        const project = projectOf(req);
        const key = `${project.id}:${kind.slug}`;
        const now = new Date();
        const current = active.get(key);
        const stored: StoredIntegration = current ?? {
          id: store.nextId('integration'),
          project_id: project.id,
          slug: kind.slug,
          created_at: now,
          updated_at: now,
          events: defaultEvents(),
          properties: {},
        };
        for (const [name, value] of Object.entries(req.params as Record<string, string | boolean | undefined>)) {
          if (value === undefined) continue;
          if ((EVENT_FLAGS as readonly string[]).includes(name)) stored.events[name as EventFlag] = value as boolean;
          else stored.properties[name] = value;
        }
        stored.updated_at = now;
        active.set(key, stored);
        reply.json(settings(kind, stored));
      });

      router.route('GET', path, { auth: 'user' }, (req, reply) => {
        const project = projectOf(req);
        reply.json(settings(kind, active.get(`${project.id}:${kind.slug}`)));
      });

      router.route('DELETE', path, { auth: 'user' }, (req, reply) => {
        const project = projectOf(req);
        active.delete(`${project.id}:${kind.slug}`);
        reply.empty(204);
      });
    }

    // Any other slug: the same checks first, then 404.
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      router.route(method, `${base}/:slug`, { auth: 'user' }, (req) => {
        projectOf(req);
        throw notFound('Service');
      });
    }
  }
}
