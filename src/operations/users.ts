// Users area: the current user and their status, the user list and one user, and the administrators' account
// management (create, update, remove an identity, delete). Passwords are credentials (see secrets.ts): a
// confirmation shows one only by its length, and the service never sends one back.
import { z } from 'zod';
import { defineOperation, fields } from './define.js';
import { presentList, show } from './present.js';

const userId = () => z.number().int().positive().describe('User ID.');
const withCustomAttributes = () => z.boolean().optional().describe('Administrators: include custom attributes.');

/** What create_user and update_user share; the name says what each sets. */
const accountFields = {
  password: z.string().min(1).optional().describe('At least 8 characters.'),
  admin: z.boolean().optional().describe('Administrator of the whole instance.'),
  external: z.boolean().optional().describe('External users see only projects they are members of.'),
  can_create_group: z.boolean().optional().describe('May create top-level groups.'),
  projects_limit: z.number().int().min(0).optional().describe('Personal projects allowed at most.'),
  extern_uid: z.string().min(1).optional().describe('With provider: the user\'s ID at that sign-in provider.'),
  provider: z.string().min(1).optional().describe('Sign-in provider, e.g. "ldapmain".'),
  bio: z.string().optional().describe('Profile text.'),
  location: z.string().optional().describe('Profile location.'),
  public_email: z.string().optional().describe('E-mail shown on the profile.'),
  organization: z.string().optional().describe('Profile organization.'),
  website_url: z.string().optional().describe('Profile website.'),
  private_profile: z.boolean().optional().describe('Hide the profile\'s activity and details.'),
};

/** The fields update_user overwrites with no history of the old value. */
const OVERWRITTEN = ['email', 'username', 'name', 'note', 'extern_uid', 'projects_limit', 'can_create_group', 'external',
  'bio', 'location', 'public_email', 'organization', 'website_url', 'private_profile'] as const;

export const usersOperations = [
  defineOperation({
    name: 'get_current_user',
    chat: 'user me',
    area: 'users',
    title: 'Get current user',
    description:
      'Show the account the token acts as: id, username, name, state, web_url and profile fields (plus email ' +
      'and is_admin for administrators). Use it to check which identity and permissions a call will have. ' +
      'Administrators may pass sudo to see another user as that user sees themselves.',
    route: 'GET /user',
    input: z.object({
      sudo: z.number().int().positive().optional()
        .describe('Administrators only: the user ID to act as for this call.'),
    }),
    effect: 'read',
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
  }),
  defineOperation({
    name: 'list_users',
    chat: 'user list',
    area: 'users',
    title: 'List users',
    description: 'Find users by name, username, e-mail, state or sign-in identity. Administrators get each user\'s e-mail, ' +
      'identities and sign-in details, and may order and filter by two-factor and custom attributes.',
    route: 'GET /users',
    input: z.object({
      search: z.string().min(1).optional().describe('Part of the name or username, or the whole primary e-mail.'),
      username: z.string().min(1).optional().describe('Exact username, any case.'),
      active: z.literal(true).optional().describe('Only active users.'),
      blocked: z.literal(true).optional().describe('Only blocked users.'),
      external: z.literal(true).optional().describe('Only external users.'),
      extern_uid: z.string().min(1).optional().describe('With provider: the ID at a sign-in provider.'),
      provider: z.string().min(1).optional().describe('Sign-in provider of extern_uid.'),
      created_after: fields.dateTime('Created after').optional(),
      created_before: fields.dateTime('Created before').optional(),
      custom_attributes: z.record(z.string(), z.string()).optional().describe('Administrators: only users with these.'),
      with_custom_attributes: withCustomAttributes(),
      order_by: z.enum(['id', 'name', 'username', 'created_at', 'updated_at']).optional().describe('Administrators; default id.'),
      sort: z.enum(['asc', 'desc']).optional().describe('Administrators; default desc.'),
      two_factor: z.enum(['enabled', 'disabled']).optional().describe('Administrators.'),
    }),
    effect: 'read',
    pagination: 'offset',
    present: presentList('user', (u) => [`@${show(u.username)}`, `${show(u.name)} · ${show(u.state)}`]),
  }),
  defineOperation({
    name: 'get_user',
    chat: 'user get',
    area: 'users',
    title: 'Get user',
    description: 'Read one user\'s profile; administrators also get e-mail, identities and sign-in details.',
    route: 'GET /users/:id',
    input: z.object({ id: userId(), with_custom_attributes: withCustomAttributes() }),
    effect: 'read',
  }),
  defineOperation({
    name: 'create_user',
    chat: 'user create',
    area: 'users',
    title: 'Create user',
    description: 'Administrators only: create an account. Give a password, or reset_password (the user sets one ' +
      'from an e-mail) or force_random_password.',
    route: 'POST /users',
    input: z.object({
      email: z.string().min(1).describe('Primary e-mail.'),
      username: z.string().min(1).describe('Username.'),
      name: z.string().min(1).describe('Full name.'),
      reset_password: z.boolean().optional().describe('E-mail the user a link to set a password.'),
      force_random_password: z.boolean().optional().describe('Set a random password nobody knows.'),
      skip_confirmation: z.boolean().optional().describe('Treat the e-mail as confirmed already.'),
      ...accountFields,
    }),
    effect: 'write',
    undo: 'Adds an account and replaces nothing; delete_user removes it again. Creating an administrator asks a human first.',
    confirm: (input) => (input.admin === true
      ? 'It creates an instance administrator: the new account can read and change everything on the instance.'
      : undefined),
  }),
  defineOperation({
    name: 'update_user',
    chat: 'user update',
    area: 'users',
    title: 'Update user',
    description: 'Administrators only: change an account\'s e-mail, username, name, password, rights or profile; ' +
      'fields left out stay.',
    route: 'PUT /users/:id',
    input: z.object({
      id: userId(),
      email: z.string().min(1).optional().describe('New primary e-mail.'),
      username: z.string().min(1).optional().describe('New username.'),
      name: z.string().min(1).optional().describe('New full name.'),
      skip_reconfirmation: z.boolean().optional().describe('Use a new e-mail at once, without its owner confirming it.'),
      group_id_for_saml: z.number().int().positive().optional().describe('With extern_uid and provider: the group whose SSO identity it is.'),
      note: z.string().optional().describe('Administrators\' note on the account.'),
      ...accountFields,
    }),
    effect: 'write',
    undo: 'The values it replaces are kept nowhere, a new password locks the user out until they change it, and ' +
      'admin changes who controls the instance; so it asks a human whenever it sets anything.',
    confirm: (input) => {
      const parts: string[] = [];
      const replaced = OVERWRITTEN.filter((key) => input[key] !== undefined);
      if (replaced.length > 0) parts.push(`overwrites the user's ${replaced.join(', ')} (the current values are kept nowhere; read them with get_user first)`);
      if (input.password !== undefined) parts.push('sets a new password the user must change at next sign-in');
      if (input.admin === true) parts.push('makes the user an instance administrator');
      if (input.admin === false) parts.push('takes the user\'s administrator rights away');
      return parts.length > 0 ? `It ${parts.join('; ')}.` : undefined;
    },
  }),
  defineOperation({
    name: 'delete_user_identity',
    chat: 'user identity-delete',
    area: 'users',
    title: 'Remove user identity',
    description: 'Administrators only: unlink a user from a sign-in provider (e.g. "ldapmain", "group_saml").',
    route: 'DELETE /users/:id/identities/:provider',
    input: z.object({ id: userId(), provider: z.string().min(1).describe('Provider name.') }),
    effect: 'destructive',
    undo: 'The user can no longer sign in through that provider; update_user with extern_uid and provider links it again, ' +
      'if the external ID is known.',
  }),
  defineOperation({
    name: 'delete_user',
    chat: 'user delete',
    area: 'users',
    title: 'Delete user',
    description: 'Administrators only: delete an account. hard_delete also deletes their contributions and the groups ' +
      'they solely own; without it the sole owner of a group cannot be deleted (409).',
    route: 'DELETE /users/:id',
    input: z.object({ id: userId(), hard_delete: z.boolean().optional().describe('Also delete contributions and solely owned groups.') }),
    effect: 'destructive',
    undo: 'Cannot be undone: the account, its tokens, keys, memberships and personal projects are gone for good.',
    confirm: (input) => (input.hard_delete === true
      ? 'Cannot be undone: the account and everything they contributed are gone for good, with every group they ' +
        'solely own and all the projects in those groups.'
      : undefined),
  }),
];
