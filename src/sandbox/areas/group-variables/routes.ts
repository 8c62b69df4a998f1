// Group CI/CD variables: list, read, create, update, delete. The key rule is the spec's (at most 255 characters
// of A-Z a-z 0-9 _), refused as a model error like the service's; a key already taken in the group is refused
// the same way. Who may (the spec is silent; the service's rule): maintainers of the group or above, inherited
// access counting; 401 without a token, 404 for a group the caller cannot see, 403 below maintainer.
import { z } from 'zod';
import { recordAuditEvent } from '../../core/audit.js';
import type { SandboxContext } from '../../core/context.js';
import { notFound, validationError } from '../../core/errors.js';
import { keyErrors, type GroupVariable } from './state.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import type { Router, SandboxRequest } from '../../core/router.js';
import { ACCESS, type Group } from '../../core/store.js';
import { pickFields } from '../../core/views.js';
import { groupVariablesOf } from './state.js';

const settable = { variable_type: param.enum(['env_var', 'file']), protected: param.boolean() };
const createParams = z
  .object({ key: z.string(), value: z.string(), ...settable })
  .partial({ variable_type: true, protected: true });
const updateParams = z.object({ value: z.string(), ...settable }).partial({ variable_type: true, protected: true });

function variableView(variable: GroupVariable) {
  return pickFields(variable, ['key', 'value', 'variable_type', 'protected']);
}

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;

  const groupOf = (req: SandboxRequest<unknown>): Group => {
    ctx.requireUser(req);
    return ctx.findGroupFor(req, req.pathParams.id, { minAccess: ACCESS.maintainer });
  };

  function findVariable(req: SandboxRequest<unknown>): { group: Group; variable: GroupVariable } {
    const group = groupOf(req);
    const variable = groupVariablesOf(store).find((v) => v.group_id === group.id && v.key === req.pathParams.key);
    if (!variable) throw notFound('Variable');
    return { group, variable };
  }

  /** Recorded against the group; the value (often a credential) is never part of an audit event. */
  const audit = (req: SandboxRequest<unknown>, group: Group, change: Record<string, string>, key: string) =>
    recordAuditEvent(
      store,
      ctx.requireUser(req),
      { type: 'Group', group },
      { ...change, target_type: 'Ci::GroupVariable', target_details: key },
    );

  router.route('GET', '/groups/:id/variables', { pagination: 'offset', auth: 'user' }, (req, reply) => {
    const group = groupOf(req);
    const variables = groupVariablesOf(store).filter((v) => v.group_id === group.id);
    reply.json(paginate(req, reply, variables).map(variableView));
  });

  router.route('GET', '/groups/:id/variables/:key', { auth: 'user' }, (req, reply) => {
    reply.json(variableView(findVariable(req).variable));
  });

  router.route('POST', '/groups/:id/variables', { params: createParams, auth: 'user' }, (req, reply) => {
    const group = groupOf(req);
    const { key, value, variable_type, protected: isProtected } = req.params;
    const errors = keyErrors(key);
    if (errors.length === 0 && groupVariablesOf(store).some((v) => v.group_id === group.id && v.key === key)) {
      errors.push(`(${key}) has already been taken`);
    }
    if (errors.length > 0) throw validationError({ key: errors });
    const variable: GroupVariable = {
      group_id: group.id,
      key,
      value,
      variable_type: variable_type ?? 'env_var',
      protected: isProtected ?? false,
    };
    groupVariablesOf(store).push(variable);
    audit(req, group, { add: 'variable' }, key);
    reply.json(variableView(variable), 201);
  });

  router.route('PUT', '/groups/:id/variables/:key', { params: updateParams, auth: 'user' }, (req, reply) => {
    const { group, variable } = findVariable(req);
    const { value, variable_type, protected: isProtected } = req.params;
    Object.assign(variable, {
      value,
      variable_type: variable_type ?? variable.variable_type,
      protected: isProtected ?? variable.protected,
    });
    audit(req, group, { change: 'variable' }, variable.key);
    reply.json(variableView(variable));
  });

  router.route('DELETE', '/groups/:id/variables/:key', { auth: 'user' }, (req, reply) => {
    const { group, variable } = findVariable(req);
    groupVariablesOf(store).splice(groupVariablesOf(store).indexOf(variable), 1);
    audit(req, group, { remove: 'variable' }, variable.key);
    reply.empty(204);
  });
}
