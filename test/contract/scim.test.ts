// Contract: SCIM provisioning of group acme — the bearer SCIM token and application/scim+json, the list envelope with
// `eq` filters and SCIM paging, create 201 from the spec's emails/name/meta/schemas, PATCH Operations (Replace and Add,
// deactivation removing the identity), delete 204, and SCIM error bodies for what is refused.
import { describe, expect, it } from 'vitest';
import type { ApiError } from '../../src/http/errors.js';
import { findOperation } from '../../src/operations/index.js';
import { validateInput } from '../../src/operations/engine/validate.js';
import { decide } from '../../src/policy/policy.js';
import { samlProvidersOf } from '../../src/sandbox/areas/scim/state.js';
import { call } from '../unit/sandbox/sandbox-client.js';
import { contractSuite, type Role } from './harness.js';

const suite = contractSuite('scim');
const GROUP = 'acme';

interface ScimUser {
  id: string;
  userName: string;
  active: boolean;
  name: { formatted: string };
  emails: Array<{ type: string; value: string; primary: boolean }>;
  schemas: string[];
  meta: { resourceType: string };
}

interface ScimList {
  schemas: string[];
  totalResults: number;
  itemsPerPage: number;
  startIndex: number;
  Resources: ScimUser[];
}

async function data<T>(name: string, input: Record<string, unknown>, as: Role = 'maintainer'): Promise<T> {
  return (await suite.call(name, { group_path: GROUP, ...input }, { as })).data as T;
}

function refusal(name: string, input: Record<string, unknown>, as: Role = 'maintainer'): Promise<ApiError> {
  return suite.refusal(name, { group_path: GROUP, ...input }, as);
}

const names = (list: ScimList) => list.Resources.map((u) => u.userName);
const workEmail = (value: string) => [{ type: 'work', value, primary: true }];
const replace = (path: string, value: string | boolean) => ({ op: 'Replace', path, value });
/** update_scim_user of the SCIM user `id` of the group with `operations`, as the maintainer. */
const patchScimUser = (id: string, operations: Array<Record<string, unknown>>) =>
  suite.call('update_scim_user', { group_path: GROUP, id, Operations: operations }, { as: 'maintainer' });
/** A valid create_scim_user input but for `changes`; a change to undefined leaves that member out. */
const scimUserInput = (changes: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries({
      group_path: GROUP,
      externalId: 'x',
      userName: 'x',
      emails: workEmail('x@y.z'),
      name: { formatted: 'x', givenName: 'x', familyName: 'x' },
      ...changes,
    }).filter(([, value]) => value !== undefined),
  );

let serial = 0;
async function provision(extra: Record<string, unknown> = {}): Promise<ScimUser> {
  serial += 1;
  return data<ScimUser>('create_scim_user', {
    externalId: `ext-${serial}`,
    userName: `sso${serial}`,
    emails: workEmail(`sso${serial}@acme.example`),
    name: { formatted: `Sso User ${serial}`, givenName: 'Sso', familyName: `User ${serial}` },
    ...extra,
  });
}

/** The requests the sandbox got after the first `before`, as [method, status]. */
const sentSince = (before: number) =>
  suite
    .requests()
    .slice(before)
    .map((r) => [r.method, r.status]);

describe.shuffle('scim, in any order', () => {
  describe('list_scim_users', () => {
    it("lists the group's provisioned users in the SCIM envelope", async () => {
      const list = await data<ScimList>('list_scim_users', {});
      // The three seeded users come first; the provisioning tests add users of their own after them.
      expect(list).toMatchObject({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
        totalResults: list.Resources.length,
        itemsPerPage: list.Resources.length,
        startIndex: 1,
      });
      expect(names(list).slice(0, 3)).toEqual(['bob', 'carol', 'dave']);
      expect(list.Resources[0]).toEqual({
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        id: '4b7e1c2a-bob',
        active: true,
        name: { formatted: 'Bob Chen' },
        userName: 'bob',
        meta: { resourceType: 'User' },
        emails: [{ type: 'work', value: 'bob@acme.example', primary: true }],
      });
    });

    it('filters with eq on userName (any case), id and externalId', async () => {
      expect(names(await data<ScimList>('list_scim_users', { filter: 'userName eq "CAROL"' }))).toEqual(['carol']);
      expect(names(await data<ScimList>('list_scim_users', { filter: 'id eq "d4a6b8c0-dave"' }))).toEqual(['dave']);
      expect(names(await data<ScimList>('list_scim_users', { filter: 'externalId eq 4b7e1c2a-bob' }))).toEqual(['bob']);
      expect((await data<ScimList>('list_scim_users', { filter: 'userName eq "nobody"' })).totalResults).toBe(0);
      const error = await refusal('list_scim_users', { filter: 'userName co "a"' });
      expect([error.status, error.serviceMessage]).toEqual([400, 'Unsupported filter: userName co "a"']);
    });

    it('pages by startIndex and count', async () => {
      const { totalResults } = await data<ScimList>('list_scim_users', {});
      const page = await data<ScimList>('list_scim_users', { startIndex: 2, count: 1 });
      expect(page).toMatchObject({ totalResults, itemsPerPage: 1, startIndex: 2 });
      expect(names(page)).toEqual(['carol']);
    });

    it('reads a startIndex below 1 as 1, as the spec says', async () => {
      const answer = await call(suite.sandbox, 'GET', `/api/scim/v2/groups/${GROUP}/Users?startIndex=0&count=1`, {
        as: 'anonymous',
        headers: { authorization: `Bearer ${suite.sandbox.tokens.scim}` },
      });
      expect(answer.headers.get('content-type')).toMatch(/^application\/scim\+json/);
      expect(answer.data).toMatchObject({ startIndex: 1, itemsPerPage: 1, Resources: [{ userName: 'bob' }] });
    });

    it('sends a startIndex below 1, which the service reads as 1, and a count above 100, which it caps', async () => {
      const { totalResults } = await data<ScimList>('list_scim_users', {});
      const before = suite.requests().length;
      const first = await data<ScimList>('list_scim_users', { startIndex: 0, count: 1 });
      expect(first).toMatchObject({ startIndex: 1, itemsPerPage: 1 });
      expect(names(first)).toEqual(['bob']);
      const all = await data<ScimList>('list_scim_users', { startIndex: -3, count: 150 });
      expect(totalResults).toBeLessThan(100);
      expect(all).toMatchObject({ startIndex: 1, totalResults, itemsPerPage: totalResults });
      expect(sentSince(before)).toEqual([
        ['GET', 200],
        ['GET', 200],
      ]);
    });

    it("needs the SCIM bearer token, and serves only the token's own group", async () => {
      const anonymous = await refusal('list_scim_users', {}, 'anonymous');
      expect([anonymous.status, anonymous.serviceMessage]).toEqual([401, 'Unauthorized']);
      // A personal access token is not a SCIM token.
      const personal = await call(suite.sandbox, 'GET', `/api/scim/v2/groups/${GROUP}/Users`, { as: 'admin' });
      expect(personal.status).toBe(401);
      for (const group of ['acme/platform', 'nowhere']) {
        const error = await refusal('list_scim_users', { group_path: group });
        expect([error.status, error.serviceMessage]).toEqual([404, 'Group Not Found']);
      }
    });
  });

  describe('get_scim_user', () => {
    it('reads one provisioned user by SCIM id, 404 for anyone else', async () => {
      expect(await data<ScimUser>('get_scim_user', { id: '9c3d5e7f-carol' })).toMatchObject({
        userName: 'carol',
        active: true,
      });
      const error = await refusal('get_scim_user', { id: 'no-such-uid' });
      expect([error.status, error.serviceMessage]).toEqual([404, 'Resource not found']);
    });
  });

  describe('create_scim_user', () => {
    it('creates a user with the identity and a guest membership, answering 201', async () => {
      const before = suite.requests().length;
      const result = await suite.call(
        'create_scim_user',
        {
          group_path: GROUP,
          externalId: 'okta-hana',
          userName: 'hana',
          emails: workEmail('hana@acme.example'),
          name: { formatted: 'Hana Sato', givenName: 'Hana', familyName: 'Sato' },
          meta: { resourceType: 'User' },
          active: true,
        },
        { as: 'maintainer' },
      );
      expect(result.status).toBe(201);
      // The spec's members go as given; the User schema is filled in when the caller names none.
      expect(sentSince(before)).toEqual([['POST', 201]]);
      expect(result.data).toMatchObject({
        id: 'okta-hana',
        userName: 'hana',
        active: true,
        emails: [{ type: 'work', value: 'hana@acme.example', primary: true }],
      });
      const { store } = suite.sandbox;
      const hana = store.findUser('hana')!;
      expect(hana.identities).toEqual([
        {
          provider: 'group_saml',
          extern_uid: 'okta-hana',
          saml_provider_id: samlProvidersOf(store).get(store.findGroup(GROUP)!.id),
        },
      ]);
      expect(store.findGroup(GROUP)!.members.get(hana.id)?.access_level).toBe(10);
      expect(names(await data<ScimList>('list_scim_users', { filter: 'userName eq "hana"' }))).toEqual(['hana']);
    });

    it('reads the work address among several e-mails, and sends the schemas it is given', async () => {
      const user = await data<ScimUser>('create_scim_user', {
        externalId: 'okta-ines',
        userName: 'ines',
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        emails: [
          { type: 'home', value: 'ines@home.example' },
          { type: 'work', value: 'ines@acme.example', primary: true },
        ],
        name: { formatted: 'Ines Ruiz', givenName: 'Ines', familyName: 'Ruiz' },
      });
      expect(user).toMatchObject({ id: 'okta-ines', userName: 'ines', emails: workEmail('ines@acme.example') });
      expect(suite.sandbox.store.findUser('ines')!.email).toBe('ines@acme.example');
    });

    it('provisions with active: false without an active identity', async () => {
      const user = await provision({ active: false });
      expect(user.active).toBe(false);
      expect(suite.sandbox.store.findUser(user.userName)!.identities).toEqual([]);
    });

    it('refuses an externalId already provisioned and a taken username, with SCIM error bodies', async () => {
      const user = await provision();
      const again = await refusal('create_scim_user', {
        externalId: user.id,
        userName: 'other-name',
        emails: workEmail('other@acme.example'),
        name: { formatted: 'O', givenName: 'O', familyName: 'O' },
      });
      expect([again.status, again.serviceMessage]).toEqual([
        409,
        'User with this externalId already exists in the group',
      ]);
      const taken = await refusal('create_scim_user', {
        externalId: 'fresh-uid',
        userName: 'alice',
        emails: workEmail('fresh@acme.example'),
        name: { formatted: 'A', givenName: 'A', familyName: 'A' },
      });
      expect(taken.status).toBe(409);
    });
  });

  describe('update_scim_user', () => {
    it('replaces the username, name, work e-mail and external id', async () => {
      const user = await provision();
      const result = await patchScimUser(user.id, [
        replace('userName', `${user.userName}-x`),
        replace('name.formatted', 'Renamed Person'),
        replace('emails[type eq "work"].value', `${user.userName}@new.example`),
        replace('externalId', `${user.id}-v2`),
      ]);
      expect(result.status).toBe(204);
      expect(await data<ScimUser>('get_scim_user', { id: `${user.id}-v2` })).toMatchObject({
        userName: `${user.userName}-x`,
        name: { formatted: 'Renamed Person' },
        emails: [{ value: `${user.userName}@new.example` }],
      });
      expect((await refusal('get_scim_user', { id: user.id })).status).toBe(404);
    });

    it("applies Add operations, on the spec's unquoted work e-mail path too", async () => {
      const user = await provision();
      const result = await patchScimUser(user.id, [
        { op: 'Add', path: 'name.formatted', value: 'Added Name' },
        { op: 'Add', path: 'emails[type eq work].value', value: `${user.userName}@added.example` },
      ]);
      expect(result.status).toBe(204);
      expect(await data<ScimUser>('get_scim_user', { id: user.id })).toMatchObject({
        name: { formatted: 'Added Name' },
        emails: [{ value: `${user.userName}@added.example` }],
      });
    });

    it('deactivates with active false (boolean or "false"), removing the identity but keeping the account and membership', async () => {
      const user = await provision();
      const raw = { group_path: GROUP, id: user.id, Operations: [replace('active', false)] };
      const op = findOperation('update_scim_user')!;
      // A human is asked first: the approval request names the deactivation.
      const asked = decide(op, validateInput(op, raw), { readOnly: false });
      expect(asked.kind === 'approve' && asked.reason).toMatch(/^It deactivates the user/);
      const before = suite.requests().length;
      expect((await suite.call('update_scim_user', raw, { as: 'maintainer' })).status).toBe(204);
      expect(sentSince(before)).toEqual([['PATCH', 204]]);
      expect((await refusal('get_scim_user', { id: user.id })).status).toBe(404);
      const { store } = suite.sandbox;
      const account = store.findUser(user.userName)!;
      expect(account.identities).toEqual([]);
      expect(store.findGroup(GROUP)!.members.has(account.id)).toBe(true);

      const second = await provision();
      await patchScimUser(second.id, [replace('active', 'false')]);
      expect(store.findUser(second.userName)!.identities).toEqual([]);
    });

    it('refuses a username or e-mail another account has, changing nothing', async () => {
      const user = await provision();
      const error = await refusal('update_scim_user', {
        id: user.id,
        Operations: [replace('name.formatted', 'Not Applied'), replace('userName', 'alice')],
      });
      expect([error.status, error.serviceMessage]).toEqual([409, 'Username or email has already been taken']);
      expect(
        (
          await refusal('update_scim_user', {
            id: user.id,
            Operations: [replace('emails[type eq "work"].value', 'ALICE@acme.example')],
          })
        ).status,
      ).toBe(409);
      expect(await data<ScimUser>('get_scim_user', { id: user.id })).toMatchObject({
        userName: user.userName,
        name: user.name,
      });
    });

    it('answers 404 for a user not provisioned here', async () => {
      expect(
        (await refusal('update_scim_user', { id: 'no-such-uid', Operations: [replace('active', true)] })).status,
      ).toBe(404);
    });
  });

  describe('delete_scim_user', () => {
    it('removes the identity and the membership with 204; the account stays', async () => {
      const user = await provision();
      expect(
        (await suite.call('delete_scim_user', { group_path: GROUP, id: user.id }, { as: 'maintainer' })).status,
      ).toBe(204);
      const { store } = suite.sandbox;
      const account = store.findUser(user.userName)!;
      expect(account.identities).toEqual([]);
      expect(store.findGroup(GROUP)!.members.has(account.id)).toBe(false);
      expect((await refusal('delete_scim_user', { id: user.id })).status).toBe(404);
    });
  });

  describe('safety', () => {
    const decision = (name: string, raw: Record<string, unknown>) => {
      const op = findOperation(name)!;
      return decide(op, validateInput(op, raw), { readOnly: false });
    };

    it('asks a human before a deactivation, an overwrite or a delete, naming the group and the user', () => {
      const deactivate = decision('update_scim_user', {
        group_path: GROUP,
        id: 'uid-1',
        Operations: [replace('userName', 'x'), replace('Active', 'False')],
      });
      expect(deactivate.kind).toBe('approve');
      expect(deactivate.kind === 'approve' && deactivate.prompt).toContain('It deactivates the user');
      const rename = decision('update_scim_user', {
        group_path: GROUP,
        id: 'uid-1',
        Operations: [{ op: 'Add', path: 'userName', value: 'x' }],
      });
      expect(rename.kind === 'approve' && rename.prompt).toContain(
        'It overwrites "userName"; the values it replaces are kept nowhere.',
      );
      expect(
        decision('update_scim_user', { group_path: GROUP, id: 'uid-1', Operations: [replace('active', true)] }).kind,
      ).toBe('approve');
      const remove = decision('delete_scim_user', { group_path: GROUP, id: 'uid-1' });
      expect(remove.kind === 'approve' && remove.prompt).toContain('group_path: "acme"');
      expect(remove.kind === 'approve' && remove.prompt).toContain('user: "uid-1"');
    });
  });

  describe('bad input', () => {
    suite.badInputCases([
      ['a fractional count', 'list_scim_users', { group_path: GROUP, count: 1.5 }, 'count'],
      ['a create without e-mails', 'create_scim_user', scimUserInput({ emails: undefined }), 'emails'],
      [
        'e-mails without the work one',
        'create_scim_user',
        scimUserInput({ emails: [{ type: 'home', value: 'x@y.z' }] }),
        'emails',
      ],
      [
        'a misspelt e-mail member',
        'create_scim_user',
        scimUserInput({ emails: [{ type: 'work', adress: 'x@y.z' }] }),
        'emails.0',
      ],
      ['a name without its parts', 'create_scim_user', scimUserInput({ name: { formatted: 'x' } }), 'name.givenName'],
      [
        'a meta of another resource type',
        'create_scim_user',
        scimUserInput({ meta: { resourceType: 'Group' } }),
        'meta.resourceType',
      ],
      [
        'an update without operations',
        'update_scim_user',
        { group_path: GROUP, id: 'x', Operations: [] },
        'Operations',
      ],
      [
        'an op the spec does not name',
        'update_scim_user',
        { group_path: GROUP, id: 'x', Operations: [{ op: 'Remove', path: 'userName', value: 'x' }] },
        'Operations.0.op',
      ],
      ['the old flat update keys', 'update_scim_user', { group_path: GROUP, id: 'x', active: false }, ''],
    ]);
  });
});

suite.coverageCase();
