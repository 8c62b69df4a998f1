// Users area: the current user and their status, the user list and one user, and the administrators' account
// management (create, update, remove an identity, delete). Passwords are credentials (see secrets.ts): a
// approval request shows one only by its length, and the service never sends one back.
import { z } from 'zod';
import { defineOperation, fields, defineArea, casesOn } from '../engine/define.js';
import type { Operation, OperationResult, RunContext } from '../engine/define.js';
import { buildRequest } from '../engine/execute.js';
import { presentList, show } from '../engine/present.js';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const userId = () => z.number().int().positive().describe('User ID.');
const withCustomAttributes = () => z.boolean().optional().describe('Administrators.');

/** What create_user and update_user share; the name says what each sets. */
const accountFields = {
  password: z.string().min(1).optional().describe('At least 8 characters.'),
  admin: z.boolean().optional().describe('Administrator of the whole instance.'),
  external: z.boolean().optional().describe('Sees only projects they are a member of.'),
  can_create_group: z.boolean().optional(),
  projects_limit: z.number().int().min(0).optional(),
  extern_uid: z.string().min(1).optional().describe('Needs provider.'),
  provider: z.string().min(1).optional().describe('Sign-in provider, e.g. "ldapmain".'),
  bio: z.string().optional(),
  location: z.string().optional(),
  public_email: z.string().optional(),
  organization: z.string().optional(),
  website_url: z.string().optional(),
  private_profile: z.boolean().nullable().optional().describe('null is read as false.'),
  social_messenger: z.string().optional(),
  social_network: z.string().optional(),
  social_microblog: z.string().optional(),
  avatar: z.string().min(4).regex(BASE64, 'must be Base64').optional().describe('Image, Base64-encoded.'),
  theme_id: z.number().int().optional(),
  color_scheme_id: z.number().int().optional(),
  shared_runners_minutes_limit: z.number().int().optional().describe('Higher tier.'),
  extra_shared_runners_minutes_limit: z.number().int().optional().describe('Higher tier.'),
};

/** Image types the service takes for an avatar, by their first bytes. */
function imageType(bytes: Buffer): { type: string; name: string } {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return { type: 'image/png', name: 'avatar.png' };
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return { type: 'image/jpeg', name: 'avatar.jpg' };
  if (bytes.subarray(0, 4).toString('latin1') === 'GIF8') return { type: 'image/gif', name: 'avatar.gif' };
  return { type: 'application/octet-stream', name: 'avatar' };
}

/**
 * The service reads an avatar only as a file part of a multipart form; with one, every other field goes in the
 * same form (arrays and objects do not occur in these inputs). Without one, the usual JSON request.
 */
async function sendAccount(op: Operation, ctx: RunContext, input: Record<string, unknown>): Promise<OperationResult> {
  const { avatar, ...rest } = input;
  if (typeof avatar !== 'string') {
    const res = await ctx.client.request(buildRequest(op, input, ctx));
    return { data: res.data, status: res.status };
  }
  const request = buildRequest(op, rest, ctx);
  const form = new FormData();
  for (const [key, value] of Object.entries(request.body ?? {})) form.append(key, String(value));
  const bytes = Buffer.from(avatar, 'base64');
  const { type, name } = imageType(bytes);
  form.append('avatar', new Blob([bytes], { type }), name);
  const res = await ctx.client.request({ ...request, body: form, bodyType: 'multipart' });
  return { data: res.data, status: res.status };
}

/** The fields update_user overwrites with no history of the old value. */
const OVERWRITTEN = [
  'email',
  'username',
  'name',
  'note',
  'extern_uid',
  'projects_limit',
  'can_create_group',
  'external',
  'bio',
  'location',
  'public_email',
  'organization',
  'website_url',
  'private_profile',
  'social_messenger',
  'social_network',
  'social_microblog',
  'avatar',
  'theme_id',
  'color_scheme_id',
  'shared_runners_minutes_limit',
  'extra_shared_runners_minutes_limit',
] as const;

const createUser: Operation = defineOperation({
  name: 'create_user',
  chat: 'user create',
  area: 'users',
  title: 'Create user',
  description: 'Administrators only: create an account, with a password, reset_password or force_random_password.',
  adminOnly: true,
  route: 'POST /users',
  input: z.object({
    email: z.string().min(1),
    username: z.string().min(1),
    name: z.string().min(1),
    reset_password: z.boolean().optional().describe('E-mail the user a link to set one.'),
    force_random_password: z.boolean().optional(),
    skip_confirmation: z.boolean().optional().describe('Treat the e-mail as confirmed.'),
    ...accountFields,
  }),
  effect: 'write',
  rules: [{ kind: 'one_of', keys: ['password', 'reset_password', 'force_random_password'] }],
  undo:
    'Adds an account and replaces nothing; delete_user removes it again. Creating an administrator, or linking a ' +
    'sign-in identity, asks a human first.',
  needsApproval: (input) => {
    const parts: string[] = [];
    if (input.admin === true)
      parts.push('creates an instance administrator: the new account can read and change everything on the instance');
    if (input.extern_uid !== undefined || input.provider !== undefined) {
      parts.push(
        `links the sign-in identity ${input.provider ?? '?'}:${input.extern_uid ?? '?'} to the new account: whoever ` +
          'controls that identity signs in as this user',
      );
    }
    return parts.length > 0 ? `It ${parts.join('; ')}.` : undefined;
  },
  run: (ctx, input) => sendAccount(createUser, ctx, input as Record<string, unknown>),
  // A new account replaces nothing; a new administrator controls the whole instance.
  decisions: {
    runs: [
      { email: 'g@acme.example', username: 'g', name: 'G', password: 'long enough' },
      { email: 'h@acme.example', username: 'h', name: 'H', reset_password: true, admin: false },
    ],
    asks: [{ email: 'g@acme.example', username: 'g', name: 'G', force_random_password: true, admin: true }],
  },
});

const updateUser: Operation = defineOperation({
  name: 'update_user',
  chat: 'user update',
  area: 'users',
  title: 'Update user',
  description: 'Administrators only: change an account; fields left out stay.',
  adminOnly: true,
  route: 'PUT /users/:id',
  input: z.object({
    id: userId(),
    email: z.string().min(1).optional(),
    username: z.string().min(1).optional(),
    name: z.string().min(1).optional(),
    skip_reconfirmation: z.boolean().optional().describe('Use a new e-mail without its owner confirming it.'),
    group_id_for_saml: z.number().int().positive().optional().describe('With extern_uid and provider: the SSO group.'),
    note: z.string().optional().describe("Administrators' note."),
    ...accountFields,
  }),
  effect: 'write',
  undo:
    'The values it replaces are kept nowhere, a new password locks the user out until they change it, and ' +
    'admin changes who controls the instance; so it asks a human whenever it sets anything.',
  needsApproval: (input) => {
    const parts: string[] = [];
    const replaced = OVERWRITTEN.filter((key) => input[key] !== undefined);
    if (replaced.length > 0)
      parts.push(
        `overwrites the user's ${replaced.join(', ')} (the current values are kept nowhere; read them with get_user first)`,
      );
    if (input.password !== undefined) parts.push('sets a new password the user must change at next sign-in');
    if (input.admin === true) parts.push('makes the user an instance administrator');
    if (input.admin === false) parts.push("takes the user's administrator rights away");
    return parts.length > 0 ? `It ${parts.join('; ')}.` : undefined;
  },
  run: (ctx, input) => sendAccount(updateUser, ctx, input as Record<string, unknown>),
  // An account's old values are kept nowhere; a new password locks its owner out until changed; admin moves control.
  decisions: casesOn(
    { id: 7 },
    {
      runs: [{}, { skip_reconfirmation: true }],
      asks: [
        { email: 'x@acme.example' },
        { username: 'x' },
        { name: 'X' },
        { bio: '' },
        { extern_uid: 'u', provider: 'ldapmain' },
        { password: 'new secret!' },
        { admin: true },
        { admin: false },
      ],
    },
  ),
});

const usersOperations = [
  defineOperation({
    name: 'get_current_user',
    chat: 'user me',
    area: 'users',
    title: 'Get current user',
    description: 'Show the account the token acts as: the identity and rights every call has.',
    route: 'GET /user',
    input: z.object({
      sudo: z.number().int().positive().optional().describe('Administrators: a user ID to act as.'),
    }),
    effect: 'read',
    examples: [{ input: {} }],
  }),
  defineOperation({
    name: 'get_current_user_status',
    chat: 'user status',
    area: 'users',
    title: 'Get my status',
    description: 'Show your own status: emoji and message.',
    route: 'GET /user/status',
    input: z.object({}),
    effect: 'read',
    examples: [{ input: {} }],
  }),
  defineOperation({
    name: 'list_users',
    chat: 'user list',
    area: 'users',
    title: 'List users',
    description: 'Find users by name, username, e-mail, state or sign-in identity.',
    route: 'GET /users',
    input: z.object({
      search: z.string().min(1).optional().describe('Part of the name or username, or the whole primary e-mail.'),
      username: z.string().min(1).optional().describe('Exact, any case.'),
      active: z.literal(true).optional(),
      blocked: z.literal(true).optional(),
      external: z.literal(true).optional(),
      extern_uid: z.string().min(1).optional().describe('Needs provider.'),
      provider: z.string().min(1).optional().describe('Sign-in provider.'),
      created_after: fields.dateTime().optional(),
      created_before: fields.dateTime().optional(),
      custom_attributes: z.record(z.string(), z.string()).optional().describe('Administrators.'),
      with_custom_attributes: withCustomAttributes(),
      order_by: z.enum(['id', 'name', 'username', 'created_at', 'updated_at']).optional().describe('Administrators.'),
      sort: z.enum(['asc', 'desc']).optional().describe('Administrators.'),
      two_factor: z.enum(['enabled', 'disabled']).optional().describe('Administrators.'),
    }),
    effect: 'read',
    rules: [{ kind: 'requires', keys: ['extern_uid', 'provider'] }],
    pagination: 'offset',
    present: presentList('user', (u) => [
      `@${show(u.username)}`,
      `${show(u.name)} (id ${show(u.id)}) · ${show(u.state)}`,
    ]),
    examples: [{ input: {} }],
  }),
  defineOperation({
    name: 'get_user',
    chat: 'user get',
    area: 'users',
    title: 'Get user',
    description: "Read one user's profile; administrators also get e-mail and sign-in details.",
    route: 'GET /users/:id',
    input: z.object({ id: userId(), with_custom_attributes: withCustomAttributes() }),
    effect: 'read',
    examples: [{ input: { id: '@alice' } }],
  }),
  createUser,
  updateUser,
  defineOperation({
    name: 'delete_user_identity',
    chat: 'user identity-delete',
    area: 'users',
    title: 'Remove user identity',
    description: 'Administrators only: unlink a user from a sign-in provider such as "ldapmain".',
    adminOnly: true,
    route: 'DELETE /users/:id/identities/:provider',
    input: z.object({ id: userId(), provider: z.string().min(1) }),
    effect: 'destructive',
    undo:
      'The user can no longer sign in through that provider; update_user with extern_uid and provider links it again, ' +
      'if the external ID is known.',
    decisions: { runs: [], asks: [{ id: 7, provider: 'ldapmain' }] },
  }),
  defineOperation({
    name: 'delete_user',
    chat: 'user delete',
    area: 'users',
    title: 'Delete user',
    description: "Administrators only: delete an account; without hard_delete a group's sole owner is refused (409).",
    adminOnly: true,
    route: 'DELETE /users/:id',
    input: z.object({
      id: userId(),
      hard_delete: z.boolean().optional().describe('Also delete their contributions and solely owned groups.'),
    }),
    effect: 'destructive',
    undo: 'Cannot be undone: the account, its tokens, keys, memberships and personal projects are gone for good.',
    needsApproval: (input) =>
      input.hard_delete === true
        ? 'Cannot be undone: the account and everything they contributed are gone for good, with every group they ' +
          'solely own and all the projects in those groups.'
        : undefined,
    decisions: { runs: [], asks: [{ id: 7 }, { id: 7, hard_delete: true }] },
  }),
];

export const area = defineArea({ name: 'users', operations: usersOperations });
