// Contract: project snippets — visibility (private, internal, public, inside a project the caller can see), raw
// content, create/update/delete with their permissions and refusals, 204/404 on delete, user agent detail for admins.
import { beforeAll, describe, expect, it } from 'vitest';
import { snippetsOf } from '../../src/sandbox/areas/snippets/state.js';
import { api } from '../unit/sandbox/sandbox-client.js';
import { WEB, expectRefusal } from './builders.js';
import { contractSuite, type Role } from './harness.js';

const suite = contractSuite('snippets');

interface Snippet {
  id: number;
  title: string;
  file_name: string;
  description: string | null;
  visibility: string;
  author: { username: string; email: string };
  web_url: string;
}

const titles = async (id: string, as: Role) =>
  (await suite.data<Snippet[]>('list_snippets', { id, per_page: 100 }, as)).map((s) => s.title);

// The visibility lists are checked on the snippets the sandbox was seeded with: other tests add snippets of their own.
let seededSnippets = new Set<string>();
beforeAll(() => {
  seededSnippets = new Set(snippetsOf(suite.sandbox.store).map((snippet) => snippet.title));
});
const seededTitles = async (id: string, as: Role) =>
  (await titles(id, as)).filter((title) => seededSnippets.has(title));

/** The id of a seeded snippet, read as its author (who sees it whatever its visibility). */
/** A snippet of acme/web made by the developer (its author) with `fields`; its data. */
const developersSnippet = (fields: { title: string; file_name: string; content: string; visibility: string }) =>
  suite.data<Snippet>('create_snippet', { id: WEB, ...fields }, 'developer');

async function seeded(title: string, project = WEB, as: Role = 'admin'): Promise<number> {
  const found = (await suite.data<Snippet[]>('list_snippets', { id: project }, as)).find((s) => s.title === title);
  expect(found, title).toBeDefined();
  return found!.id;
}

describe.shuffle('snippets, in any order', () => {
  describe('visibility', () => {
    it('lists public snippets to anyone, internal ones to signed-in users, private ones to their author and admins', async () => {
      const everyone = ['Local dev setup', 'Button variants'];
      expect((await seededTitles(WEB, 'anonymous')).sort()).toEqual([...everyone].sort());
      expect((await seededTitles(WEB, 'outsider')).sort()).toEqual([...everyone, 'Feature flag cheat sheet'].sort());
      // A maintainer does not see bob's private notes; bob and the administrator do. Newest first.
      expect(await seededTitles(WEB, 'maintainer')).toEqual([
        'Feature flag cheat sheet',
        'Button variants',
        'Local dev setup',
      ]);
      expect(await seededTitles(WEB, 'developer')).toEqual([
        'Debugging notes',
        'Feature flag cheat sheet',
        'Button variants',
        'Local dev setup',
      ]);
      expect(await seededTitles(WEB, 'admin')).toHaveLength(4);
    });

    it('answers 404 for a snippet the caller may not see, as for a missing one', async () => {
      const notes = await seeded('Debugging notes');
      for (const [input, as] of [
        [{ id: WEB, snippet_id: notes }, 'maintainer'],
        [{ id: WEB, snippet_id: 99_999 }, 'developer'],
      ] as const) {
        await expectRefusal(suite, 'get_snippet', input, as, [404, '404 Snippet Not Found']);
        expect((await suite.refusal('get_snippet_raw', input, as)).status).toBe(404);
      }
      const flags = await seeded('Feature flag cheat sheet');
      expect((await suite.refusal('get_snippet', { id: WEB, snippet_id: flags }, 'anonymous')).status).toBe(404);
      // A snippet is found only under its own project.
      expect(
        (await suite.refusal('get_snippet', { id: 'acme/platform/infra', snippet_id: flags }, 'admin')).status,
      ).toBe(404);
      expect(
        (await suite.data<Snippet>('get_snippet', { id: WEB, snippet_id: notes }, 'developer')).author.username,
      ).toBe('bob');
    });

    it("hides a private project's snippets, even internal ones, from non-members", async () => {
      for (const as of ['outsider', 'anonymous'] as const) {
        await expectRefusal(suite, 'list_snippets', { id: 'acme/platform/payments-api' }, as, [
          404,
          '404 Project Not Found',
        ]);
      }
      expect(await titles('acme/platform/payments-api', 'guest')).toEqual(['Refund replay']);
      expect(await titles('acme/platform/infra', 'outsider')).toEqual(['Terraform imports']);
    });

    it('reads a snippet with its author and link', async () => {
      const setup = await suite.data<Snippet>(
        'get_snippet',
        { id: WEB, snippet_id: await seeded('Local dev setup') },
        'anonymous',
      );
      expect(setup).toMatchObject({
        title: 'Local dev setup',
        file_name: 'setup.sh',
        visibility: 'public',
        description: expect.stringContaining('day one'),
        author: { username: 'alice', email: 'alice@acme.example' },
      });
      expect(setup.web_url).toMatch(new RegExp(`/acme/web/-/snippets/${setup.id}$`));
    });
  });

  describe('raw content', () => {
    it("is the snippet's plain text", async () => {
      const result = await suite.call(
        'get_snippet_raw',
        { id: WEB, snippet_id: await seeded('Local dev setup') },
        { as: 'anonymous' },
      );
      expect(result.data).toBe('#!/bin/sh\nset -e\nnpm ci\ncp .env.example .env\nnpm run dev\n');
      expect(result.contentType).toMatch(/^text\/plain/);
    });
  });

  describe('create, update, delete', () => {
    it('creates a snippet with every field, which its author then reads back raw', async () => {
      const input = {
        id: WEB,
        title: 'Deploy checklist',
        file_name: 'deploy.md',
        content: '- [ ] tag\n- [ ] release\n',
        visibility: 'private',
        description: 'Before every release.',
      };
      const result = await suite.call('create_snippet', input, { as: 'reporter' });
      expect(result.status).toBe(201);
      const created = result.data as Snippet;
      expect(created).toMatchObject({
        title: 'Deploy checklist',
        file_name: 'deploy.md',
        visibility: 'private',
        description: 'Before every release.',
        author: { username: 'carol' },
      });
      expect((await suite.call('get_snippet_raw', { id: WEB, snippet_id: created.id }, { as: 'reporter' })).data).toBe(
        input.content,
      );
      // Private: not even the project's maintainer sees it.
      expect((await suite.refusal('get_snippet', { id: WEB, snippet_id: created.id })).status).toBe(404);
    });

    it('refuses guests, anonymous callers and archived projects, and checks the fields over HTTP', async () => {
      const input = { id: WEB, title: 't', file_name: 'f.txt', content: 'c', visibility: 'public' };
      expect((await suite.refusal('create_snippet', input, 'guest')).status).toBe(403);
      expect((await suite.refusal('create_snippet', input, 'outsider')).status).toBe(403);
      expect((await suite.refusal('create_snippet', input, 'anonymous')).status).toBe(401);
      const archived = await suite.refusal('create_snippet', { ...input, id: 'acme/handbook' });
      expect([archived.status, archived.serviceMessage]).toEqual([
        403,
        '403 Forbidden - the project is archived and read-only',
      ]);
      const path = `/projects/${encodeURIComponent(WEB)}/snippets`;
      const bad = await api(suite.sandbox, 'POST', path, {
        json: { title: ' ', file_name: 'f', content: 'c', visibility: 'secret' },
      });
      expect([bad.status, bad.data]).toEqual([
        400,
        { error: 'title is empty, visibility does not have a valid value' },
      ]);
      const missing = await api(suite.sandbox, 'POST', path, { json: { title: 't', file_name: 'f', content: 'c' } });
      expect([missing.status, missing.data]).toEqual([400, { error: 'visibility is missing' }]);
    });

    it('lets the author or a maintainer change every field, and no one else', async () => {
      const { id } = await developersSnippet({
        title: 'Old',
        file_name: 'a.txt',
        content: 'one',
        visibility: 'internal',
      });
      const changed = await suite.data<Snippet>(
        'update_snippet',
        {
          id: WEB,
          snippet_id: id,
          title: 'New',
          file_name: 'b.txt',
          content: 'two',
          description: 'now described',
          visibility: 'public',
        },
        'developer',
      );
      expect(changed).toMatchObject({
        title: 'New',
        file_name: 'b.txt',
        description: 'now described',
        visibility: 'public',
      });
      expect((await suite.call('get_snippet_raw', { id: WEB, snippet_id: id }, { as: 'anonymous' })).data).toBe('two');
      // Fields left out stay as they are.
      expect(
        await suite.data<Snippet>('update_snippet', { id: WEB, snippet_id: id, title: 'Newer' }, 'maintainer'),
      ).toMatchObject({ title: 'Newer', file_name: 'b.txt', visibility: 'public' });
      const reporter = await suite.refusal(
        'update_snippet',
        { id: WEB, snippet_id: id, title: 'Mine now' },
        'reporter',
      );
      expect([reporter.status, reporter.message]).toEqual([403, '403 Forbidden']);
      const empty = await suite.refusal('update_snippet', { id: WEB, snippet_id: id });
      expect(empty.status).toBe(400);
      expect(empty.serviceMessage).toMatch(/at least one parameter must be provided/);
    });

    it('deletes with 204, then answers 404; refuses who may not', async () => {
      const { id } = await developersSnippet({ title: 'Temp', file_name: 't.txt', content: 'x', visibility: 'public' });
      expect((await suite.refusal('delete_snippet', { id: WEB, snippet_id: id }, 'reporter')).status).toBe(403);
      expect((await suite.refusal('delete_snippet', { id: WEB, snippet_id: id }, 'anonymous')).status).toBe(401);
      const deleted = await suite.call('delete_snippet', { id: WEB, snippet_id: id }, { as: 'maintainer' });
      expect(deleted.status).toBe(204);
      const again = await suite.refusal('delete_snippet', { id: WEB, snippet_id: id });
      expect([again.status, again.message]).toEqual([404, '404 Snippet Not Found']);
      expect((await suite.refusal('get_snippet', { id: WEB, snippet_id: id })).status).toBe(404);
      // A private snippet is not the maintainer's to see, so not theirs to delete either.
      expect(
        (await suite.refusal('delete_snippet', { id: WEB, snippet_id: await seeded('Debugging notes') })).status,
      ).toBe(404);
    });
  });

  describe('user agent detail', () => {
    it('shows administrators where a snippet was created from', async () => {
      const created = await developersSnippet({ title: 'UA', file_name: 'ua.txt', content: 'x', visibility: 'public' });
      expect(await suite.data('get_snippet_user_agent_detail', { id: WEB, snippet_id: created.id }, 'admin')).toEqual({
        user_agent: 'forgeops',
        ip_address: '127.0.0.1',
        spamfilter_submitted: false,
      });
      expect(
        await suite.data(
          'get_snippet_user_agent_detail',
          { id: WEB, snippet_id: await seeded('Debugging notes') },
          'admin',
        ),
      ).toEqual({ user_agent: 'curl/8.5.0', ip_address: '127.0.0.1', spamfilter_submitted: true });
    });

    it("refuses everyone else, the snippet's author included", async () => {
      const input = { id: WEB, snippet_id: await seeded('Button variants') };
      expect((await suite.refusal('get_snippet_user_agent_detail', input, 'developer')).status).toBe(403);
      expect((await suite.refusal('get_snippet_user_agent_detail', input, 'maintainer')).status).toBe(403);
      expect((await suite.refusal('get_snippet_user_agent_detail', input, 'anonymous')).status).toBe(401);
    });
  });

  describe('input and presentation', () => {
    suite.badInputCases([
      [
        'a snippet without visibility',
        'create_snippet',
        { id: WEB, title: 't', file_name: 'f', content: 'c' },
        'visibility',
      ],
      ['an unknown visibility', 'update_snippet', { id: WEB, snippet_id: 1, visibility: 'secret' }, 'visibility'],
      ['a snippet id that is not a number', 'get_snippet', { id: WEB, snippet_id: 'abc' }, 'snippet_id'],
      ['a snippet id that is not a whole number', 'delete_snippet', { id: WEB, snippet_id: 1.5 }, 'snippet_id'],
    ]);

    suite.pagingCase('list_snippets', { id: WEB }, { as: 'developer' });

    it('lists snippets as $id, title, file, visibility, author and age', async () => {
      const result = await suite.call('list_snippets', { id: 'bob/scratchpad' }, { as: 'developer' });
      const id = (result.data as Snippet[])[0].id;
      expect(suite.operation('list_snippets').present!(result.data, { id: 'bob/scratchpad' })).toEqual({
        title: '1 snippet',
        fields: [[`$${id}`, 'Scratch SQL · orders.sql · private · @bob · 14d']],
      });
    });
  });
});

suite.coverageCase();
