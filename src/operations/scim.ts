// SCIM area: provision and de-provision a single-sign-on group's users (SCIM 2.0). The HTTP client sends the SCIM
// token as a bearer and application/scim+json on these paths; the inputs here are flat, and the SCIM documents
// (emails, PATCH Operations) are built from them, so the model never writes SCIM's nested syntax.
import { z } from 'zod';
import { defineOperation } from './define.js';
import type { Operation, OperationResult, RunContext } from './define.js';
import { buildRequest } from './execute.js';

const groupPath = () => z.string().min(1);
const scimId = () => z.string().min(1).describe('SCIM id: the external UID.');

const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** update_scim_user's inputs → the SCIM paths they replace (the spec's list). */
const PATCH_PATHS = {
  externalId: 'externalId',
  userName: 'userName',
  name: 'name.formatted',
  email: 'emails[type eq "work"].value',
  active: 'active',
} as const;

async function send(op: Operation, ctx: RunContext, body: Record<string, unknown>): Promise<OperationResult> {
  const res = await ctx.client.request(buildRequest(op, body, ctx));
  return { data: res.data, status: res.status };
}

const create: Operation = defineOperation({
  name: 'create_scim_user',
  chat: 'scim create',
  area: 'scim',
  title: 'Provision SCIM user',
  description: 'Create a user for the group\'s single sign-on and make them a guest member.',
  route: 'POST /api/scim/v2/groups/:group_path/Users',
  input: z.object({
    group_path: groupPath(),
    externalId: z.string().min(1).describe('ID at the identity provider.'),
    userName: z.string().min(1),
    email: z.string().min(1),
    name: z.object({
      formatted: z.string().min(1).describe('Full name.'),
      givenName: z.string().min(1),
      familyName: z.string().min(1),
    }),
    active: z.boolean().optional().describe('false: no active identity.'),
  }),
  effect: 'write',
  undo: 'Adds an identity and a membership and replaces nothing; delete_scim_user removes both again.',
  run: (ctx, { email, ...rest }) =>
    send(create, ctx, { ...rest, schemas: [USER_SCHEMA], emails: [{ type: 'work', value: email, primary: true }] }),
});

const update: Operation = defineOperation({
  name: 'update_scim_user',
  chat: 'scim update',
  area: 'scim',
  title: 'Update SCIM user',
  description: 'Change a provisioned user\'s IDs, name or e-mail, or deactivate them (active: false).',
  route: 'PATCH /api/scim/v2/groups/:group_path/Users/:id',
  input: z.object({
    group_path: groupPath(),
    id: scimId(),
    externalId: z.string().min(1).optional().describe('Also the new SCIM id.'),
    userName: z.string().min(1).optional(),
    name: z.string().min(1).optional().describe('Full name.'),
    email: z.string().min(1).optional(),
    active: z.boolean().optional().describe('false removes the single-sign-on identity.'),
  }),
  // Any field it sets is overwritten without history, and active: false signs the user out of the group's SSO.
  effect: 'destructive',
  undo: 'The values it replaces are kept nowhere, and active: false removes the user\'s single-sign-on identity: only ' +
    'provisioning them again (create_scim_user) brings them back.',
  confirm: (input) => (input.active === false
    ? 'It deactivates the user: their single-sign-on identity in the group is removed, and they can no longer sign in through it.'
    : undefined),
  run: (ctx, input) => {
    const Operations = Object.entries(PATCH_PATHS)
      .filter(([key]) => input[key as keyof typeof PATCH_PATHS] !== undefined)
      .map(([key, path]) => ({ op: 'Replace', path, value: input[key as keyof typeof PATCH_PATHS] }));
    return send(update, ctx, { group_path: input.group_path, id: input.id, schemas: [PATCH_SCHEMA], Operations });
  },
});

export const scimOperations = [
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
  }),
  create,
  update,
  defineOperation({
    name: 'delete_scim_user',
    chat: 'scim delete',
    area: 'scim',
    title: 'De-provision SCIM user',
    description: 'Remove a user\'s single-sign-on identity and group membership; the account stays.',
    route: 'DELETE /api/scim/v2/groups/:group_path/Users/:id',
    input: z.object({ group_path: groupPath(), id: scimId() }),
    effect: 'destructive',
    undo: 'The user loses the group and its projects at once; create_scim_user provisions them again, with a guest membership only.',
  }),
];
