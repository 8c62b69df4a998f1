// Contract: users — the current user (sudo), their status, the user list and one user in the public and the
// administrator form, and the administrators' writes with the spec's rules: the password options on create, 404 for
// a taken e-mail on update, identities, delete 204/404/409 and hard_delete; refusals for everyone else.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import { findOperation } from '../../src/operations/index.js';
import { validateInput } from '../../src/operations/engine/validate.js';
import { decide } from '../../src/policy/policy.js';
import { samlProvidersOf } from '../../src/sandbox/areas/scim/state.js';
import { passwordsOf } from '../../src/sandbox/areas/users/state.js';
import { contractSuite, withoutRules, type Role } from './harness.js';

const suite = contractSuite('users');

interface User {
  id: number;
  username: string;
  name: string;
  state: string;
  email?: string;
  is_admin?: boolean;
  confirmed_at?: string | null;
  identities?: Array<{ provider: string; extern_uid: string; saml_provider_id?: number }>;
  custom_attributes?: Array<{ key: string; value: string }>;
  [key: string]: unknown;
}

async function data<T>(name: string, input: Record<string, unknown>, as: Role = 'admin'): Promise<T> {
  return (await suite.call(name, input, { as })).data as T;
}

function refusal(name: string, input: Record<string, unknown>, as: Role = 'admin'): Promise<ApiError> {
  return suite.refusal(name, input, as);
}

/** The operation without its input rules: what the sandbox itself answers a client that has none (curl). */
async function sandboxRefusal(name: string, input: Record<string, unknown>, as: Role = 'admin'): Promise<ApiError> {
  const error = await suite.call(withoutRules(suite.operation(name)), input, { as }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

/** A 1x1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

const usernames = async (input: Record<string, unknown>, as: Role = 'admin') =>
  (await data<User[]>('list_users', { per_page: 100, ...input }, as)).map((u) => u.username);

const seeded = (username: string) => suite.sandbox.store.users.find((u) => u.username === username)!;
// Some filters are checked on the users the sandbox was seeded with: the create tests add users (external ones too).
let seededUsers = new Set<string>();
beforeAll(() => {
  seededUsers = new Set(suite.sandbox.store.users.map((u) => u.username));
});
const seededUsernames = async (input: Record<string, unknown>) =>
  (await usernames(input)).filter((username) => seededUsers.has(username));

let serial = 0;
/** A fresh account for a test to change or delete (the seeded ones are shared by the whole file). */
async function newUser(extra: Record<string, unknown> = {}): Promise<User> {
  serial += 1;
  return data<User>('create_user', {
    email: `temp${serial}@example.org`,
    username: `temp${serial}`,
    name: `Temp ${serial}`,
    password: 'correct horse battery',
    ...extra,
  });
}

// Every test makes what it changes, so they run shuffled, in an order other than the written one (the seed is
// in vitest.config.ts): a test that leans on what another did fails on every run.
describe.shuffle('users, in any order', () => {
  describe('get_current_user', () => {
    it('returns the account the token belongs to', async () => {
      const result = await suite.call('get_current_user', {}, { as: 'developer' });
      expect(result.status).toBe(200);
      expect(result.data).toMatchObject({
        username: 'bob',
        state: 'active',
        id: expect.any(Number),
        web_url: expect.any(String),
      });
      expect(result.data).not.toHaveProperty('is_admin');
    });

    it('gives an administrator the administrator form, and lets them act as another user with sudo', async () => {
      const admin = await suite.call('get_current_user', {}, { as: 'admin' });
      expect(admin.data).toMatchObject({ username: 'root', is_admin: true });
      const carol = seeded('carol');
      const result = await suite.call('get_current_user', { sudo: carol.id }, { as: 'admin' });
      expect(result.data).toMatchObject({ id: carol.id, username: 'carol' });
      expect(result.data).not.toHaveProperty('is_admin');
    });

    it("refuses sudo from a non-administrator with the service's 403", async () => {
      const error = await refusal('get_current_user', { sudo: 1 }, 'maintainer');
      expect(error).toMatchObject({ status: 403, serviceMessage: '403 Forbidden - Must be admin to use sudo' });
    });

    it('is a 401 without a token', async () => {
      expect((await refusal('get_current_user', {}, 'anonymous')).status).toBe(401);
    });
  });

  describe('get_current_user_status', () => {
    it("gives the caller's own emoji and message, with the message as escaped HTML", async () => {
      expect(await data('get_current_user_status', {}, 'developer')).toEqual({
        emoji: 'coffee',
        message: 'On call until Friday <3',
        message_html: 'On call until Friday &#60;3',
      });
      expect(await data('get_current_user_status', {}, 'reporter')).toEqual({
        emoji: null,
        message: null,
        message_html: null,
      });
      expect((await refusal('get_current_user_status', {}, 'anonymous')).status).toBe(401);
    });
  });

  describe('list_users and get_user', () => {
    it('gives others the public form and administrators the administrator form', async () => {
      const [publicForm] = await data<User[]>('list_users', { username: 'ALICE' }, 'developer');
      expect(Object.keys(publicForm).sort()).toEqual(['avatar_url', 'id', 'name', 'state', 'username', 'web_url']);
      const [adminForm] = await data<User[]>('list_users', { username: 'alice' });
      expect(adminForm).toMatchObject({
        email: 'alice@acme.example',
        is_admin: false,
        identities: expect.any(Array),
        last_sign_in_ip: '127.0.0.1',
      });
      const one = await data<User>('get_user', { id: adminForm.id }, 'outsider');
      expect(one).toMatchObject({ username: 'alice', bio: 'Tech lead, platform team.', organization: 'Acme' });
      expect(one).not.toHaveProperty('email');
      expect(await data<User>('get_user', { id: adminForm.id })).toMatchObject({
        email: 'alice@acme.example',
        is_admin: false,
      });
    });

    it('filters by search, state, external and identity; false state filters filter nothing', async () => {
      expect(await usernames({ search: 'ali' })).toEqual(['alice']);
      // An e-mail matches whole only.
      expect(await usernames({ search: 'bob@acme.example' })).toEqual(['bob']);
      expect(await usernames({ search: 'acme.example' })).toEqual([]);
      expect(await seededUsernames({ blocked: true })).toEqual(['frank']);
      expect(await seededUsernames({ external: true })).toEqual(['frank']);
      const active = await usernames({ active: true });
      expect(active).toContain('alice');
      expect(active).not.toContain('frank');
      expect(await usernames({ extern_uid: 'uid=alice,ou=people,dc=acme,dc=example', provider: 'ldapmain' })).toEqual([
        'alice',
      ]);
      expect(await usernames({ extern_uid: 'uid=alice,ou=people,dc=acme,dc=example', provider: 'other' })).toEqual([]);
      const error = await sandboxRefusal('list_users', { extern_uid: 'x' });
      expect([error.status, error.serviceMessage]).toEqual([
        400,
        'extern_uid, provider provide all or none of parameters',
      ]);
    });

    it('filters by creation date, newest id first by default', async () => {
      const frank = seeded('frank');
      expect(await usernames({ created_before: new Date(frank.created_at.getTime() + 1000).toISOString() })).toEqual([
        'frank',
      ]);
      const after = await usernames({ created_after: new Date(frank.created_at.getTime() + 1000).toISOString() });
      expect(after).not.toContain('frank');
      const ids = (await data<User[]>('list_users', { per_page: 100 })).map((u) => u.id);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
    });

    it('lets administrators order, filter by two-factor and custom attributes and read those attributes', async () => {
      const all = await usernames({ order_by: 'username', sort: 'asc' });
      expect(all).toEqual([...all].sort());
      expect(await usernames({ two_factor: 'enabled' })).toEqual(['carol']);
      expect(await usernames({ two_factor: 'disabled' })).not.toContain('carol');
      expect(await usernames({ custom_attributes: { team: 'platform' } })).toEqual(['alice']);
      const [alice] = await data<User[]>('list_users', { username: 'alice', with_custom_attributes: true });
      expect(alice.custom_attributes).toEqual([{ key: 'team', value: 'platform' }]);
      expect((await data<User>('get_user', { id: alice.id, with_custom_attributes: true })).custom_attributes).toEqual([
        { key: 'team', value: 'platform' },
      ]);
      // Others' ordering and administrator filters are ignored, as the service ignores them.
      const theirs = await usernames({ order_by: 'username', sort: 'asc', two_factor: 'enabled' }, 'developer');
      expect(theirs.length).toBeGreaterThan(1);
      expect(theirs).toEqual([...(await usernames({}, 'developer'))]);
      expect(
        await data<User>('get_user', { id: alice.id, with_custom_attributes: true }, 'developer'),
      ).not.toHaveProperty('custom_attributes');
    });

    it('answers 404 for an unknown user', async () => {
      const error = await refusal('get_user', { id: 99_999 });
      expect([error.status, error.serviceMessage]).toEqual([404, '404 User Not Found']);
    });

    suite.pagingCase('list_users', {}, { as: 'admin' });
  });

  describe('create_user', () => {
    it('creates an account from every field and answers 201 with the administrator form', async () => {
      const result = await suite.call(
        'create_user',
        {
          email: 'gina@acme.example',
          username: 'gina',
          name: 'Gina Park',
          password: 'a long secret',
          skip_confirmation: true,
          admin: false,
          external: true,
          can_create_group: false,
          projects_limit: 5,
          extern_uid: 'uid=gina',
          provider: 'ldapmain',
          bio: 'New SRE.',
          location: 'Lisbon',
          public_email: 'gina@acme.example',
          organization: 'Acme',
          website_url: 'https://gina.example',
          private_profile: true,
        },
        { as: 'admin' },
      );
      expect(result.status).toBe(201);
      expect(result.data).toMatchObject({
        username: 'gina',
        email: 'gina@acme.example',
        is_admin: false,
        external: true,
        can_create_group: false,
        projects_limit: 5,
        identities: [{ provider: 'ldapmain', extern_uid: 'uid=gina' }],
        bio: 'New SRE.',
        location: 'Lisbon',
        website_url: 'https://gina.example',
        private_profile: true,
        confirmed_at: expect.any(String),
      });
      expect(result.data).not.toHaveProperty('password');
      expect(passwordsOf(suite.sandbox.store).get(seeded('gina'))?.mustChange).toBe(false);
    });

    it('leaves the e-mail unconfirmed without skip_confirmation, and makes an administrator when asked', async () => {
      const user = await newUser({ admin: true });
      expect(user).toMatchObject({ is_admin: true, confirmed_at: null });
    });

    it('needs a password, reset_password or force_random_password; the flags win over a password', async () => {
      const none = await sandboxRefusal('create_user', { email: 'x@example.org', username: 'x1', name: 'X' });
      expect([none.status, none.serviceMessage]).toEqual([
        400,
        'password, reset_password, force_random_password are missing, at least one parameter must be provided',
      ]);
      const flagsOff = await sandboxRefusal('create_user', {
        email: 'x@example.org',
        username: 'x1',
        name: 'X',
        reset_password: false,
        force_random_password: false,
      });
      expect([flagsOff.status, flagsOff.serviceMessage]).toEqual([400, 'password is missing']);
      await newUser({ password: undefined, reset_password: true });
      const both = await newUser({ password: 'not-used-at-all', reset_password: true, force_random_password: true });
      const record = passwordsOf(suite.sandbox.store).get(seeded(both.username))!;
      // A random password nobody knows, to be replaced: the one sent was not used.
      expect(record.mustChange).toBe(true);
      expect(record.sha256).not.toBe(createHash('sha256').update('not-used-at-all').digest('hex'));
    });

    it('refuses a short password and a bad e-mail', async () => {
      const invalid = await refusal('create_user', {
        email: 'not-an-email',
        username: 'y1',
        name: 'Y',
        password: 'short',
      });
      expect(invalid.status).toBe(400);
      expect(invalid.fieldErrors).toEqual({
        email: ['is invalid'],
        password: ['is too short (minimum is 8 characters)'],
      });
    });

    // The service compares both without regard to case: ALICE and Bob are the seeded alice and bob.
    it.each([
      ['e-mail', { email: 'ALICE@acme.example', username: 'y2' }, 'Email has already been taken'],
      ['username', { email: 'y3@example.org', username: 'Bob' }, 'Username has already been taken'],
    ])('refuses a taken %s', async (_what, taken, message) => {
      const error = await refusal('create_user', { ...taken, name: 'Y', force_random_password: true });
      expect([error.status, error.serviceMessage]).toEqual([409, message]);
    });

    it('sets the profile fields, theme, colour scheme and CI minute quotas', async () => {
      const profile = {
        social_messenger: 'temp-im',
        social_network: 'temp-net',
        social_microblog: '@temp',
        theme_id: 3,
        color_scheme_id: 5,
        shared_runners_minutes_limit: 400,
        extra_shared_runners_minutes_limit: 50,
      };
      const user = await newUser(profile);
      expect(user).toMatchObject(profile);
      expect(await data<User>('get_user', { id: user.id }, 'outsider')).toMatchObject({ social_microblog: '@temp' });
    });

    it('uploads an avatar as a file part of a multipart form; the service refuses one sent as text', async () => {
      const user = await newUser({ avatar: PNG.toString('base64') });
      expect(user.avatar_url).toBe(`${suite.sandbox.url}/uploads/-/system/user/avatar/${user.id}/avatar.png`);
      expect(seeded(user.username).avatar).toMatchObject({ content_type: 'image/png', content: PNG });
      const response = await fetch(`${suite.sandbox.url}/api/v4/users`, {
        method: 'POST',
        headers: { 'private-token': suite.sandbox.tokens.admin, 'content-type': 'application/json' },
        body: JSON.stringify({
          email: 'av@example.org',
          username: 'av1',
          name: 'Av',
          force_random_password: true,
          avatar: PNG.toString('base64'),
        }),
      });
      expect([response.status, await response.json()]).toEqual([400, { error: 'avatar is invalid' }]);
      expect(suite.sandbox.store.findUser('av1')).toBeUndefined();
    });

    it('takes an avatar part by its image file name when it comes with no image content type, as the service does', async () => {
      const upload = async (filename: string, type: string | undefined, username: string) => {
        const form = new FormData();
        for (const [key, value] of Object.entries({ email: `${username}@example.org`, username, name: 'Av' }))
          form.append(key, value);
        form.append('force_random_password', 'true');
        form.append('avatar', new Blob([PNG], type === undefined ? {} : { type }), filename);
        const response = await fetch(`${suite.sandbox.url}/api/v4/users`, {
          method: 'POST',
          headers: { 'private-token': suite.sandbox.tokens.admin },
          body: form,
        });
        return [response.status, ((await response.json()) as { avatar_url?: string; error?: string }).error];
      };
      expect(await upload('face.png', undefined, 'avpart1')).toEqual([201, undefined]);
      expect(await upload('face.JPG', 'application/octet-stream', 'avpart2')).toEqual([201, undefined]);
      expect(await upload('notes.txt', 'text/plain', 'avpart3')).toEqual([400, 'avatar is invalid']);
      expect(suite.sandbox.store.findUser('avpart3')).toBeUndefined();
    });

    it('refuses an identity already linked to another account with 409', async () => {
      const error = await refusal('create_user', {
        email: 'taker@example.org',
        username: 'taker',
        name: 'T',
        force_random_password: true,
        extern_uid: 'uid=alice,ou=people,dc=acme,dc=example',
        provider: 'ldapmain',
      });
      expect([error.status, error.serviceMessage]).toEqual([409, 'Identity has already been taken']);
      expect(suite.sandbox.store.findUser('taker')).toBeUndefined();
      // The same extern_uid at another provider is another identity.
      const other = await newUser({ extern_uid: 'uid=alice,ou=people,dc=acme,dc=example', provider: 'github' });
      expect(other.identities).toEqual([{ provider: 'github', extern_uid: 'uid=alice,ou=people,dc=acme,dc=example' }]);
    });

    it('is for administrators only: 403 for a maintainer, 401 anonymous', async () => {
      const input = { email: 'z@example.org', username: 'z1', name: 'Z', force_random_password: true };
      expect((await refusal('create_user', input, 'maintainer')).status).toBe(403);
      expect((await refusal('create_user', input, 'anonymous')).status).toBe(401);
      expect(suite.sandbox.store.findUser('z1')).toBeUndefined();
    });
  });

  describe('update_user', () => {
    it('changes the fields given and keeps the others', async () => {
      const user = await newUser({ bio: 'kept' });
      const updated = await data<User>('update_user', {
        id: user.id,
        name: 'Renamed',
        username: `${user.username}-r`,
        note: 'Moved to platform.',
        location: 'Oslo',
        admin: true,
        external: false,
        can_create_group: true,
        projects_limit: 7,
        public_email: 'p@example.org',
        organization: 'Acme',
        website_url: 'https://r.example',
        private_profile: false,
      });
      expect(updated).toMatchObject({
        name: 'Renamed',
        username: `${user.username}-r`,
        note: 'Moved to platform.',
        location: 'Oslo',
        bio: 'kept',
        is_admin: true,
        projects_limit: 7,
        public_email: 'p@example.org',
      });
    });

    it('makes a new password one to change at next sign-in', async () => {
      const user = await newUser();
      await data('update_user', { id: user.id, password: 'brand new secret' });
      expect(passwordsOf(suite.sandbox.store).get(seeded(user.username))?.mustChange).toBe(true);
    });

    it("asks a new e-mail's owner to confirm it unless skip_reconfirmation", async () => {
      const user = await newUser({ skip_confirmation: true });
      expect(
        (
          await data<User>('update_user', {
            id: user.id,
            email: `${user.username}@new.example`,
            skip_reconfirmation: true,
          })
        ).confirmed_at,
      ).not.toBeNull();
      expect(
        (await data<User>('update_user', { id: user.id, email: `${user.username}@newer.example` })).confirmed_at,
      ).toBeNull();
    });

    it("links an identity, a group's SSO one with group_id_for_saml", async () => {
      const user = await newUser();
      const acme = suite.sandbox.store.findGroup('acme')!;
      const updated = await data<User>('update_user', {
        id: user.id,
        provider: 'group_saml',
        extern_uid: 'sso-1',
        group_id_for_saml: acme.id,
        bio: 'b',
      });
      expect(updated.identities).toEqual([
        {
          provider: 'group_saml',
          extern_uid: 'sso-1',
          saml_provider_id: samlProvidersOf(suite.sandbox.store).get(acme.id),
        },
      ]);
    });

    it('changes the profile fields, theme, colour scheme, quotas and avatar', async () => {
      const user = await newUser();
      const profile = {
        social_messenger: 'im2',
        social_network: 'net2',
        social_microblog: '@two',
        theme_id: 2,
        color_scheme_id: 4,
        shared_runners_minutes_limit: 10,
        extra_shared_runners_minutes_limit: 0,
      };
      const updated = await data<User>('update_user', { id: user.id, ...profile, avatar: PNG.toString('base64') });
      expect(updated).toMatchObject({
        ...profile,
        avatar_url: `${suite.sandbox.url}/uploads/-/system/user/avatar/${user.id}/avatar.png`,
      });
    });

    it('reads a null private_profile as false, as the spec says', async () => {
      const user = await newUser({ private_profile: true });
      expect(user.private_profile).toBe(true);
      expect((await data<User>('update_user', { id: user.id, private_profile: null })).private_profile).toBe(false);
    });

    it('answers 404 for an identity already linked to another account (the spec: 404 where 409 would fit)', async () => {
      const user = await newUser();
      const error = await refusal('update_user', {
        id: user.id,
        extern_uid: 'uid=alice,ou=people,dc=acme,dc=example',
        provider: 'ldapmain',
      });
      expect([error.status, error.serviceMessage]).toEqual([404, '404 Identity has already been taken Not Found']);
      expect(seeded(user.username).identities).toEqual([]);
      // Its own identity may be set again.
      const own = await newUser({ extern_uid: 'uid=own', provider: 'ldapmain' });
      expect(
        (await data<User>('update_user', { id: own.id, extern_uid: 'uid=own', provider: 'ldapmain' })).identities,
      ).toEqual([{ provider: 'ldapmain', extern_uid: 'uid=own' }]);
    });

    it('answers 404 for an e-mail or username already taken, as the service does', async () => {
      const user = await newUser();
      const email = await refusal('update_user', { id: user.id, email: 'alice@acme.example' });
      expect([email.status, email.serviceMessage]).toEqual([404, '404 Email has already been taken Not Found']);
      const username = await refusal('update_user', { id: user.id, username: 'alice' });
      expect([username.status, username.serviceMessage]).toEqual([
        404,
        '404 Username has already been taken Not Found',
      ]);
      expect((await refusal('update_user', { id: 99_999, name: 'x' })).status).toBe(404);
    });

    it('is for administrators only', async () => {
      const bob = seeded('bob');
      const error = await refusal('update_user', { id: bob.id, name: 'Hacked' }, 'developer');
      expect(error.status).toBe(403);
      expect(seeded('bob').name).toBe('Bob Chen');
    });
  });

  describe('delete_user_identity', () => {
    it('unlinks a provider, then answers 404 for it', async () => {
      const user = await newUser({ extern_uid: 'uid=t', provider: 'ldapmain' });
      const result = await suite.call('delete_user_identity', { id: user.id, provider: 'ldapmain' }, { as: 'admin' });
      expect(result.status).toBe(204);
      expect((await data<User>('get_user', { id: user.id })).identities).toEqual([]);
      const again = await refusal('delete_user_identity', { id: user.id, provider: 'ldapmain' });
      expect([again.status, again.serviceMessage]).toEqual([404, '404 Identity Not Found']);
    });

    it('is for administrators only', async () => {
      const alice = seeded('alice');
      expect((await refusal('delete_user_identity', { id: alice.id, provider: 'ldapmain' }, 'maintainer')).status).toBe(
        403,
      );
      expect(seeded('alice').identities.map((i) => i.provider)).toContain('ldapmain');
    });
  });

  describe('delete_user', () => {
    it('deletes with 204, then answers 404', async () => {
      const user = await newUser();
      expect((await suite.call('delete_user', { id: user.id }, { as: 'admin' })).status).toBe(204);
      expect((await refusal('get_user', { id: user.id })).status).toBe(404);
      const again = await refusal('delete_user', { id: user.id });
      expect([again.status, again.serviceMessage]).toEqual([404, '404 User Not Found']);
    });

    it("refuses a soft delete of a group's sole owner with 409; hard_delete takes the group along", async () => {
      const root = seeded('root');
      const sole = await refusal('delete_user', { id: root.id });
      expect([sole.status, sole.serviceMessage]).toEqual([
        409,
        'User cannot be removed while is the sole owner of a group',
      ]);
      const user = await newUser();
      const { store } = suite.sandbox;
      const group = store.addGroup({ name: 'Solo', path: `solo-${user.id}` });
      group.members.set(user.id, { access_level: 50, expires_at: null, created_at: new Date() });
      expect((await refusal('delete_user', { id: user.id })).status).toBe(409);
      expect((await suite.call('delete_user', { id: user.id, hard_delete: true }, { as: 'admin' })).status).toBe(204);
      expect(store.findGroup(group.full_path)).toBeUndefined();
      expect(store.findUser(user.username)).toBeUndefined();
    });

    it('is for administrators only', async () => {
      const erin = seeded('erin');
      expect((await refusal('delete_user', { id: erin.id }, 'maintainer')).status).toBe(403);
      expect((await refusal('delete_user', { id: erin.id }, 'anonymous')).status).toBe(401);
      expect(seeded('erin')).toBeDefined();
    });
  });

  describe('safety', () => {
    const prompt = (name: string, raw: Record<string, unknown>) => {
      const op = findOperation(name)!;
      const decision = decide(op, validateInput(op, raw), { readOnly: false });
      return decision.kind === 'approve' ? decision.prompt : '';
    };

    it('asks a human before create_user links a sign-in identity, as update_user does', () => {
      const base = { email: 'a@b.c', username: 'a', name: 'A', force_random_password: true };
      expect(prompt('create_user', base)).toBe('');
      const text = prompt('create_user', { ...base, extern_uid: 'uid=ceo', provider: 'ldapmain' });
      expect(text).toContain('ldapmain:uid=ceo');
      expect(text).toContain('whoever controls that identity signs in as this user');
      expect(prompt('update_user', { id: 7, extern_uid: 'uid=ceo', provider: 'ldapmain' })).toContain('extern_uid');
    });

    it('never shows a password in an approval request, only its length', () => {
      const text = prompt('update_user', { id: 7, password: 'hunter2hunter2' });
      expect(text).toContain('password: <secret, 14 characters>');
      expect(text).not.toContain('hunter2');
      expect(
        prompt('create_user', { email: 'a@b.c', username: 'a', name: 'A', password: 'hunter2hunter2', admin: true }),
      ).not.toContain('hunter2');
    });
  });

  describe('bad input', () => {
    suite.badInputCases([
      ['a sudo that is not a user ID', 'get_current_user', { sudo: 'root' }, 'sudo'],
      ['an unknown key', 'get_current_user', { user: 1 }, ''],
      ['a user id that is a username', 'get_user', { id: 'alice' }, 'id'],
      ['a false active filter (the service cannot filter by it)', 'list_users', { active: false }, 'active'],
      ['an unknown order', 'list_users', { order_by: 'email' }, 'order_by'],
      ['a create without a name', 'create_user', { email: 'a@b.c', username: 'a', password: 'xxxxxxxx' }, 'name'],
      ['a negative projects limit', 'update_user', { id: 1, projects_limit: -1 }, 'projects_limit'],
      [
        'extern_uid without provider (the spec: extern_uid with provider)',
        'list_users',
        { extern_uid: 'x' },
        'provider',
      ],
      [
        'a create without password, reset_password or force_random_password',
        'create_user',
        { email: 'a@b.c', username: 'a', name: 'A' },
        'password',
      ],
      [
        'a create whose flags are both false and that has no password',
        'create_user',
        { email: 'a@b.c', username: 'a', name: 'A', reset_password: false, force_random_password: false },
        'password',
      ],
      [
        'an avatar that is not Base64',
        'create_user',
        { email: 'a@b.c', username: 'a', name: 'A', password: 'xxxxxxxx', avatar: 'not base64!' },
        'avatar',
      ],
      ['a theme that is not a whole number', 'update_user', { id: 1, theme_id: 1.5 }, 'theme_id'],
    ]);
  });
});

suite.coverageCase();
