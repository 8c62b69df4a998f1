// SCIM area: provision and de-provision a single-sign-on group's users (SCIM 2.0). The HTTP client sends the SCIM
// token as a bearer and application/scim+json on these paths. The inputs are the spec's own SCIM members (emails,
// name, PATCH Operations), sent as given; forgeops adds only the `schemas` URN a SCIM document carries.
import { z } from 'zod';
import { defineOperation, defineArea, demoLookup, casesOn } from '../engine/define.js';
import type { Operation } from '../engine/define.js';
import { buildRequest } from '../engine/execute.js';

const groupPath = () => z.string().min(1);
const scimId = () => z.string().min(1).describe('SCIM id: the external UID.');

const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

// Nested objects are strict, like the top level: a misspelt member is an error, never silently dropped.
const email = z.strictObject({
  type: z.string().min(1).optional(),
  value: z.string().min(1),
  primary: z.boolean().optional(),
});

const patchOperation = z.strictObject({
  // "op is Replace or Add", as the spec writes them.
  op: z.enum(['Replace', 'Add']),
  path: z.string().min(1),
  value: z.union([z.string(), z.boolean()]),
});

/** An operation that sets `active` to false: it removes the user's single-sign-on identity. */
function deactivates(op: z.infer<typeof patchOperation>): boolean {
  return op.path.trim().toLowerCase() === 'active' && String(op.value).trim().toLowerCase() === 'false';
}

const create: Operation = defineOperation({
  name: 'create_scim_user',
  chat: 'scim create',
  area: 'scim',
  title: 'Provision SCIM user',
  description: "Create a user for the group's single sign-on and make them a guest member.",
  route: 'POST /api/scim/v2/groups/:group_path/Users',
  input: z.object({
    group_path: groupPath(),
    externalId: z.string().min(1).describe('ID at the identity provider.'),
    userName: z.string().min(1),
    // "required: work email": the service reads the address of the entry whose type is work.
    emails: z
      .array(email)
      .min(1)
      .refine((list) => list.some((e) => e.type === 'work'), {
        message: 'needs the work e-mail: an entry with type "work"',
      })
      .describe('Include {"type":"work","value":…,"primary":true}.'),
    name: z.strictObject({
      formatted: z.string().min(1).describe('Full name.'),
      givenName: z.string().min(1),
      familyName: z.string().min(1),
    }),
    meta: z.strictObject({ resourceType: z.literal('User') }).optional(),
    active: z.boolean().optional().describe('false: no active identity.'),
    // The spec states no default; a SCIM document names its schema, so forgeops sends the User one when none is given.
    schemas: z
      .array(z.string().min(1))
      .optional()
      .transform((list) => list ?? [USER_SCHEMA])
      .describe('Default: the SCIM User schema.'),
  }),
  effect: 'write',
  undo: 'Adds an identity and a membership and replaces nothing; delete_scim_user removes both again.',
  decisions: {
    runs: [
      {
        group_path: 'acme',
        externalId: 'e',
        userName: 'u',
        emails: [{ type: 'work', value: 'u@acme.example', primary: true }],
        name: { formatted: 'U V', givenName: 'U', familyName: 'V' },
      },
    ],
    asks: [],
  },
});

const update: Operation = defineOperation({
  name: 'update_scim_user',
  chat: 'scim update',
  area: 'scim',
  title: 'Update SCIM user',
  description: "Change a provisioned user's IDs, name or e-mail, or deactivate them (path active, value false).",
  route: 'PATCH /api/scim/v2/groups/:group_path/Users/:id',
  input: z.object({
    group_path: groupPath(),
    id: scimId(),
    // The paths the spec lists; the service refuses any other.
    Operations: z
      .array(patchOperation)
      .min(1)
      .describe('Paths: externalId, userName, name.formatted, emails[type eq "work"].value, active.'),
  }),
  // Replace and Add overwrite without history, and active false signs the user out of the group's SSO.
  effect: 'destructive',
  undo:
    "The values its operations replace are kept nowhere, and active set to false removes the user's single-sign-on " +
    'identity: only provisioning them again (create_scim_user) brings them back.',
  needsApproval: (input) => {
    if (input.Operations.some(deactivates)) {
      return 'It deactivates the user: their single-sign-on identity in the group is removed, and they can no longer sign in through it.';
    }
    // Quoted: a path is the caller's text, and the reason must not read as anything but the paths it names.
    const paths = [...new Set(input.Operations.map((o) => JSON.stringify(o.path)))].join(', ');
    return `It overwrites ${paths}; the values it replaces are kept nowhere.`;
  },
  // The PATCH document names its schema (RFC 7644); the spec lists only Operations as a parameter, so it is no input.
  run: async (ctx, input) => {
    const res = await ctx.client.request(buildRequest(update, { schemas: [PATCH_SCHEMA], ...input }, ctx));
    return { data: res.data, status: res.status };
  },
  // A Replace or Add overwrites without history; active set to false removes the user's single-sign-on identity.
  decisions: casesOn(
    { group_path: 'acme', id: 'e' },
    {
      runs: [],
      asks: [
        { Operations: [{ op: 'Replace', path: 'active', value: false }] },
        { Operations: [{ op: 'Replace', path: 'active', value: 'false' }] },
        { Operations: [{ op: 'Replace', path: 'userName', value: 'x' }] },
        { Operations: [{ op: 'Add', path: 'name.formatted', value: 'X' }] },
      ],
    },
  ),
});

const scimOperations = [
  defineOperation({
    name: 'list_scim_users',
    chat: 'scim list',
    area: 'scim',
    title: 'List SCIM users',
    description: 'List the users provisioned in a group through single sign-on.',
    route: 'GET /api/scim/v2/groups/:group_path/Users',
    input: z.object({
      group_path: groupPath(),
      filter: z.string().min(1).optional().describe('One equality, e.g. userName eq "alice".'),
      // "1-based, values below 1 are read as 1": the service takes them, so forgeops does too.
      startIndex: z.number().int().optional(),
      // "count (integer, desired maximum)": no bound or default in the spec; the service may return fewer.
      count: z.number().int().min(0).optional(),
    }),
    effect: 'read',
    examples: [{ input: { group_path: 'acme' } }],
  }),
  defineOperation({
    name: 'get_scim_user',
    chat: 'scim get',
    area: 'scim',
    title: 'Get SCIM user',
    description: 'Read one provisioned user by their SCIM id.',
    route: 'GET /api/scim/v2/groups/:group_path/Users/:id',
    input: z.object({ group_path: groupPath(), id: scimId() }),
    effect: 'read',
    examples: [
      {
        input: { group_path: 'acme', id: demoLookup('/api/scim/v2/groups/:group_path/Users', { items: 'Resources' }) },
      },
    ],
  }),
  create,
  update,
  defineOperation({
    name: 'delete_scim_user',
    chat: 'scim delete',
    area: 'scim',
    title: 'De-provision SCIM user',
    description: "Remove a user's single-sign-on identity and group membership; the account stays.",
    route: 'DELETE /api/scim/v2/groups/:group_path/Users/:id',
    input: z.object({ group_path: groupPath(), id: scimId() }),
    effect: 'destructive',
    undo: 'The user loses the group and its projects at once; create_scim_user provisions them again, with a guest membership only.',
    decisions: { runs: [], asks: [{ group_path: 'acme', id: 'e' }] },
  }),
];

export const area = defineArea({ name: 'scim', operations: scimOperations });
