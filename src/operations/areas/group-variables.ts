// Group variables area: a group's CI/CD variables — list, read, create, update, delete. A value is a credential by
// default, whatever its key: every result shows it masked (length and a short digest), unless a read asks with
// `reveal` and a human approves; a value sent is shown by its length only in an approval request.
import { z } from 'zod';
import { defineOperation, fields, defineArea } from '../engine/define.js';
import { asRecord, presentList, show } from '../engine/present.js';
import { maskSecret } from '../engine/secrets.js';

// The pattern and the length say what a key may be: no text needed.
const key = () =>
  z
    .string()
    .min(1)
    .max(255)
    .regex(/^[A-Za-z0-9_]+$/, 'only A-Z, a-z, 0-9 and _');
const variableInput = z.object({ id: fields.groupId(), key: key() });
const settable = {
  variable_type: z.enum(['env_var', 'file']).optional().describe('file: the job gets a file path.'),
  protected: z.boolean().optional().describe('Only for protected branches and tags.'),
};

/** A variable as results show it: the value masked, an empty one as it is (there is nothing to hide). */
function maskVariable(item: unknown): unknown {
  const variable = asRecord(item);
  return typeof variable.value === 'string' && variable.value !== ''
    ? { ...variable, value: maskSecret(variable.value) }
    : item;
}

/** Every variable of an answer (one, or a page of them) as results show it: masked unless the read asked to reveal. */
function maskVariables(data: unknown, input: Record<string, unknown>): unknown {
  if (input.reveal === true) return data;
  return Array.isArray(data) ? data.map(maskVariable) : maskVariable(data);
}

const REVEAL_DECISION =
  'Changes nothing; with reveal it shows credentials unmasked, so a human approves that read first and only the asker sees the answer.';

/** Asking to see values is a read a human approves: the answer holds credentials, for the asker's eyes only. */
const reveal = z.boolean().optional().describe('Show values unmasked; a human approves first.');
const revealNeedsApproval = (input: { reveal?: boolean }) =>
  input.reveal === true
    ? 'It shows CI variable values (credentials) unmasked, to you alone: in Slack only as a message nobody else sees.'
    : undefined;

const list = defineOperation({
  name: 'list_group_variables',
  chat: 'variable list',
  area: 'group_variables',
  title: 'List group variables',
  description: "List a group's CI/CD variables; values masked unless reveal.",
  route: 'GET /groups/:id/variables',
  input: z.object({ id: fields.groupId(), reveal }),
  effect: 'read',
  idempotent: false,
  needsApproval: revealNeedsApproval,
  undo: REVEAL_DECISION,
  pagination: 'offset',
  present: presentList('variable', (v) => [
    show(v.key),
    `${show(v.variable_type)}${v.protected === true ? ' · protected' : ''} · ${show(v.value)}`,
  ]),
  redact: maskVariables,
  examples: [{ input: { id: 'acme/platform' } }],
});

const get = defineOperation({
  name: 'get_group_variable',
  chat: 'variable get',
  area: 'group_variables',
  title: 'Get group variable',
  description: 'Read one group CI/CD variable; its value masked unless reveal.',
  route: 'GET /groups/:id/variables/:key',
  input: variableInput.extend({ reveal }),
  effect: 'read',
  idempotent: false,
  needsApproval: revealNeedsApproval,
  undo: REVEAL_DECISION,
  redact: maskVariables,
  examples: [{ input: { id: 'acme/platform', key: 'LOG_LEVEL' } }],
});

const create = defineOperation({
  name: 'create_group_variable',
  chat: 'variable create',
  area: 'group_variables',
  title: 'Create group variable',
  description: 'Add a CI/CD variable to a group; every pipeline of its projects gets it.',
  route: 'POST /groups/:id/variables',
  input: z.object({ id: fields.groupId(), key: key(), value: z.string(), ...settable }),
  effect: 'write',
  secretInputs: ['value'],
  undo: 'Adds a new variable and replaces nothing (an existing key is refused); delete_group_variable removes it.',
  redact: maskVariables,
  decisions: {
    runs: [{ id: 'acme', key: 'K', value: 'v', variable_type: 'file', protected: true }],
    asks: [],
  },
});

const update = defineOperation({
  name: 'update_group_variable',
  chat: 'variable update',
  area: 'group_variables',
  title: 'Update group variable',
  description: "Replace a group CI/CD variable's value, and optionally its type or protection.",
  route: 'PUT /groups/:id/variables/:key',
  input: z.object({ id: fields.groupId(), key: key(), value: z.string(), ...settable }),
  effect: 'write',
  secretInputs: ['value'],
  undo: 'The value it replaces (often a credential) is kept nowhere, and every later pipeline uses the new one; so it always asks a human.',
  needsApproval: (input) =>
    `It replaces the value of ${input.key} for every pipeline of the group's projects; the current value is kept nowhere.`,
  redact: maskVariables,
  // Every call replaces the value (often a credential), which is kept nowhere, for every later pipeline.
  decisions: {
    runs: [],
    asks: [
      { id: 'acme', key: 'K', value: 'v' },
      { id: 'acme', key: 'K', value: 'v', protected: false },
    ],
  },
});

const groupVariablesOperations = [
  list,
  get,
  create,
  update,
  defineOperation({
    name: 'delete_group_variable',
    chat: 'variable delete',
    area: 'group_variables',
    title: 'Delete group variable',
    description: 'Remove a CI/CD variable from a group.',
    route: 'DELETE /groups/:id/variables/:key',
    input: variableInput,
    effect: 'destructive',
    undo: 'Cannot be undone: the value is gone, and pipelines that need the variable fail until it is created again.',
    decisions: { runs: [], asks: [{ id: 'acme', key: 'DEPLOY_ENV' }] },
  }),
];

export const area = defineArea({ name: 'group_variables', operations: groupVariablesOperations });
