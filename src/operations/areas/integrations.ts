// Integrations area: list, read, create or edit, and remove a project's integrations (chat, CI, trackers, email).
// Their settings hold credentials: every answer is redacted (redactSecrets), whatever the service returns.
import { z } from 'zod';
import { defineOperation, fields, defineArea } from '../engine/define.js';
import type { Presentation } from '../engine/define.js';
import { asRecord, presentList, show } from '../engine/present.js';
import { redactSecrets } from '../engine/secrets.js';

const target = {
  id: fields.projectId(),
  slug: z.string().min(1).describe('E.g. "emails-on-push".'),
};

/** The event flags that are on, as a short list. */
function eventsOn(item: Record<string, unknown>): string {
  const on = Object.entries(item)
    .filter(([key, value]) => key.endsWith('_events') && value === true)
    .map(([key]) => key.replace(/_events$/, ''));
  return on.length > 0 ? on.join(', ') : 'no events';
}

function presentIntegration(data: unknown): Presentation {
  const item = asRecord(data);
  const properties = Object.entries(asRecord(item.properties)).map(
    ([key, value]) => [key, show(value)] as [string, string],
  );
  return {
    title: `${show(item.title)} (${show(item.slug)}): ${item.active === true ? 'active' : 'inactive'}`,
    fields: [['events', eventsOn(item)], ...properties],
  };
}

const list = defineOperation({
  name: 'list_integrations',
  chat: 'integration list',
  area: 'integrations',
  title: 'List integrations',
  description: "List a project's active integrations and their events. Needs Maintainer access.",
  route: 'GET /projects/:id/services',
  input: z.object({ id: fields.projectId() }),
  effect: 'read',
  present: presentList('integration', (item) => [show(item.slug), `${show(item.title)} · ${eventsOn(item)}`]),
  redact: redactSecrets,
  examples: [{ input: { id: 'acme/platform/payments-api' } }],
});

const get = defineOperation({
  name: 'get_integration',
  chat: 'integration get',
  area: 'integrations',
  title: 'Get integration',
  description: "Read one integration's settings, credentials redacted. Needs Maintainer access.",
  route: 'GET /projects/:id/services/:slug',
  input: z.object(target),
  effect: 'read',
  present: presentIntegration,
  redact: redactSecrets,
  examples: [{ input: { id: 'acme/platform/payments-api', slug: 'build-server' } }],
});

const set = defineOperation({
  name: 'set_integration',
  chat: 'integration set',
  area: 'integrations',
  title: 'Set integration',
  description: 'Create or edit a project integration. Needs Maintainer access.',
  route: 'PUT /projects/:id/services/:slug',
  input: z.object({
    ...target,
    // One open object, not every kind's parameters: the service has more kinds than any list, and each key costs
    // every assistant tokens in every conversation.
    settings: z
      .record(z.string(), z.union([z.string(), z.boolean()]))
      .describe('E.g. {"webhook": "https://…", "push_events": true}.'),
  }),
  effect: 'write',
  undo:
    'The settings it replaces, credentials included, are kept nowhere, and what it sets decides where the ' +
    "project's events (confidential ones too) are sent; so it always asks a human.",
  needsApproval: (input) =>
    `It creates or replaces the "${input.slug}" integration's settings; the current ones are kept ` +
    "nowhere, and the project's events will go where these settings say.",
  present: presentIntegration,
  spreadInput: 'settings',
  redact: redactSecrets,
  // The settings it replaces (credentials too) are kept nowhere, and they decide where the project's events go.
  decisions: {
    runs: [],
    asks: [
      { id: 'acme/web', slug: 'external-wiki', settings: { external_wiki_url: 'https://w.example' } },
      { id: 'acme/web', slug: 'team-inbox', settings: {} },
    ],
  },
});

const integrationsOperations = [
  list,
  get,
  set,
  defineOperation({
    name: 'delete_integration',
    chat: 'integration delete',
    area: 'integrations',
    title: 'Delete integration',
    description: 'Remove a project integration and its settings. Needs Maintainer access.',
    route: 'DELETE /projects/:id/services/:slug',
    input: z.object(target),
    effect: 'destructive',
    undo: 'Cannot be undone: its settings and credentials are gone; set_integration needs them all again.',
    decisions: { runs: [], asks: [{ id: 'acme/web', slug: 'emails-on-push' }] },
  }),
];

export const area = defineArea({ name: 'integrations', operations: integrationsOperations });
