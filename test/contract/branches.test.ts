// Contract: every branches operation against the sandbox — list (search, paging) and read branch records from the
// project's git repository, create and delete, delete merged branches, protected branches, permissions and policy.
import { describe, expect, it } from 'vitest';
import { validateInput } from '../../src/operations/engine/validate.js';
import { decide } from '../../src/policy/policy.js';
import type { FactsReading } from '../../src/operations/engine/effect-facts.js';
import { WEB, PAYMENTS, INFRA, answered } from './builders.js';
import { contractSuite } from './harness.js';

const suite = contractSuite('branches');

type Branch = {
  name: string;
  commit: { id: string; short_id: string; title: string; author_name: string; committed_date: string };
  merged: boolean;
  protected: boolean;
  default: boolean;
  developers_can_push: boolean;
  developers_can_merge: boolean;
  can_push: boolean;
  web_url: string;
};
type Protection = {
  name: string;
  push_access_levels: Array<{ access_level: number }>;
  merge_access_levels: Array<{ access_level: number }>;
  allow_force_push: boolean;
};

describe.shuffle('branches, in any order', () => {
  describe('list_branches and get_branch', () => {
    it('lists the branches by name with their head commit and flags', async () => {
      const branches = await answered<Branch[]>(suite, 'list_branches', { id: WEB });
      expect(branches.map((b) => b.name)).toEqual([
        'feature/dark-mode',
        'feature/search',
        'fix/checkout-total',
        'main',
      ]);
      const main = branches.find((b) => b.name === 'main')!;
      expect(main).toMatchObject({
        default: true,
        protected: true,
        merged: false,
        developers_can_push: false,
        can_push: true,
      });
      expect(main.commit.id).toMatch(/^[0-9a-f]{40}$/);
      expect(main.commit.short_id).toBe(main.commit.id.slice(0, 8));
      expect(main.web_url).toMatch(/\/acme\/web\/-\/tree\/main$/);
      expect(branches.find((b) => b.name === 'feature/search')).toMatchObject({
        merged: true,
        protected: false,
        default: false,
      });
      expect(branches.find((b) => b.name === 'feature/dark-mode')).toMatchObject({ merged: false });
      const fix = branches.find((b) => b.name === 'fix/checkout-total')!;
      expect(fix).toMatchObject({ merged: true, commit: { title: 'Release 1.1.0', author_name: 'Alice Martin' } });
      const shown = suite.operation('list_branches').present!(branches, { id: WEB });
      expect(shown.title).toBe('4 branches');
    });

    it('searches by part of the name, ^ and $ anchoring it', async () => {
      const names = async (search: string) =>
        (await suite.data<Branch[]>('list_branches', { id: WEB, search })).map((b) => b.name);
      expect(await names('feature')).toEqual(['feature/dark-mode', 'feature/search']);
      expect(await names('^fix')).toEqual(['fix/checkout-total']);
      expect(await names('search$')).toEqual(['feature/search']);
      expect(await names('^search')).toEqual([]);
    });

    it('reads one branch; an unknown one is 404 Branch Not Found', async () => {
      const branch = await suite.data<Branch>('get_branch', { id: WEB, branch: 'feature/dark-mode' });
      expect(branch).toMatchObject({
        name: 'feature/dark-mode',
        default: false,
        commit: { title: 'Wire dark mode into the header' },
      });
      expect(suite.requests().at(-1)?.path).toBe('/projects/acme%2Fweb/repository/branches/feature%2Fdark-mode');
      const shown = suite.operation('get_branch').present!(branch, { id: WEB, branch: 'feature/dark-mode' });
      expect(shown.title).toBe('Branch feature/dark-mode');
      const missing = await suite.refusal('get_branch', { id: WEB, branch: 'nope' });
      expect(missing.status).toBe(404);
      expect(missing.message).toContain('Branch Not Found');
    });

    it('lets readers read and hides a private project from outsiders', async () => {
      expect((await suite.data<Branch[]>('list_branches', { id: PAYMENTS }, 'reporter')).some((b) => b.default)).toBe(
        true,
      );
      const main = await suite.data<Branch>('get_branch', { id: WEB, branch: 'main' }, 'reporter');
      expect(main.can_push).toBe(false);
      expect((await suite.refusal('list_branches', { id: PAYMENTS }, 'outsider')).status).toBe(404);
    });
  });

  describe('paging', () => {
    suite.pagingCase('list_branches', { id: WEB });
  });

  // Writes go to acme/platform/infra, whose branches no other test of this file reads, each to names of its own, so
  // that acme/web's and payments-api's branch lists stay as seeded for the tests that read them.
  describe('create_branch and delete_branch', () => {
    it('creates a branch at a ref as a developer, refuses an existing name or an invalid ref', async () => {
      const name = suite.freshName('topic/from-tag');
      const result = await suite.call('create_branch', { id: INFRA, branch: name, ref: 'v1.0.0' }, { as: 'developer' });
      expect(result.status).toBe(201);
      const branch = result.data as Branch;
      // v1.0.0 is infra's main head: the service counts a branch at the default branch's head as not merged.
      expect(branch).toMatchObject({
        name,
        merged: false,
        protected: false,
        can_push: true,
        commit: { title: 'Add staging environment' },
      });
      const exists = await suite.refusal('create_branch', { id: INFRA, branch: name, ref: 'main' }, 'developer');
      expect(exists.status).toBe(400);
      expect(exists.message).toContain('Branch already exists');
      const badRef = await suite.refusal(
        'create_branch',
        { id: INFRA, branch: suite.freshName('topic/other'), ref: 'no-such-ref' },
        'developer',
      );
      expect(badRef.status).toBe(400);
      expect(badRef.message).toContain('Invalid reference name');
      expect(
        (
          await suite.refusal(
            'create_branch',
            { id: INFRA, branch: suite.freshName('topic/x'), ref: 'main' },
            'reporter',
          )
        ).status,
      ).toBe(403);
    });

    it('deletes a branch as a developer; the default branch never, a protected one only as a maintainer', async () => {
      const gone = suite.freshName('topic/gone');
      await suite.call('create_branch', { id: INFRA, branch: gone, ref: 'main' });
      expect((await suite.refusal('delete_branch', { id: INFRA, branch: gone }, 'reporter')).status).toBe(403);
      const result = await suite.call('delete_branch', { id: INFRA, branch: gone }, { as: 'developer' });
      expect(result.status).toBe(204);
      expect((await suite.refusal('get_branch', { id: INFRA, branch: gone })).status).toBe(404);
      const main = await suite.refusal('delete_branch', { id: INFRA, branch: 'main' });
      expect(main.status).toBe(400);
      expect(main.message).toContain('default branch');
      const keep = suite.freshName('keep');
      await suite.call('protect_branch', { id: INFRA, name: `${keep}/*` });
      await suite.call('create_branch', { id: INFRA, branch: `${keep}/this`, ref: 'main' });
      await suite.call('create_branch', { id: INFRA, branch: `${keep}/gone`, ref: 'main' });
      const guarded = await suite.refusal('delete_branch', { id: INFRA, branch: `${keep}/this` }, 'developer');
      expect([guarded.status, guarded.serviceMessage]).toEqual([
        400,
        'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
      ]);
      expect((await suite.call('delete_branch', { id: INFRA, branch: `${keep}/gone` })).status).toBe(204);
      expect((await suite.refusal('delete_branch', { id: INFRA, branch: 'nope' })).status).toBe(404);
    });

    it('deletes merged branches with 202, keeping the default, protected and unmerged ones', async () => {
      // A branch behind main is merged; one at main's head is not (the service leaves it, as it says merged: false).
      const merged = suite.freshName('topic/merged');
      const initial = (await suite.data<{ parent_ids: string[] }>('get_commit', { id: INFRA, sha: 'v1.0.0' }))
        .parent_ids[0];
      await suite.call('create_branch', { id: INFRA, branch: merged, ref: initial });
      const atHead = suite.freshName('topic/at-head');
      await suite.call('create_branch', { id: INFRA, branch: atHead, ref: 'main' });
      const unmerged = await suite.freshBranch(INFRA);
      const keep = suite.freshName('keep');
      await suite.call('protect_branch', { id: INFRA, name: `${keep}/*` });
      await suite.call('create_branch', { id: INFRA, branch: `${keep}/this`, ref: 'main' });
      expect((await suite.refusal('delete_merged_branches', { id: INFRA }, 'reporter')).status).toBe(403);
      const result = await suite.call('delete_merged_branches', { id: INFRA }, { as: 'developer' });
      expect(result.status).toBe(202);
      const names = (await suite.data<Branch[]>('list_branches', { id: INFRA })).map((b) => b.name);
      expect(names).toEqual(expect.arrayContaining(['main', atHead, unmerged.name, `${keep}/this`]));
      expect(names).not.toContain(merged);
    });
  });

  describe('protected branches', () => {
    it('lists protections: the default branch is protected for maintainers', async () => {
      const list = await suite.data<Protection[]>('list_protected_branches', { id: PAYMENTS }, 'reporter');
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({
        name: 'main',
        allow_force_push: false,
        push_access_levels: [{ access_level: 40 }],
        merge_access_levels: [{ access_level: 40 }],
      });
      const shown = suite.operation('list_protected_branches').present!(list, { id: PAYMENTS });
      expect(shown.title).toBe('1 protected branch');
    });

    it('protects a wildcard with access levels and force push; 409 when already protected; maintainers only', async () => {
      const release = suite.freshName('release');
      const input = {
        id: INFRA,
        name: `${release}/*`,
        push_access_level: 30,
        merge_access_level: 30,
        allow_force_push: true,
      };
      expect((await suite.refusal('protect_branch', input, 'developer')).status).toBe(403);
      const result = await suite.call('protect_branch', input);
      expect(result.status).toBe(201);
      expect(result.data).toMatchObject({
        name: `${release}/*`,
        allow_force_push: true,
        push_access_levels: [{ access_level: 30 }],
      });
      expect((await suite.refusal('protect_branch', input)).status).toBe(409);
      await suite.call('create_branch', { id: INFRA, branch: `${release}/1.2`, ref: 'main' }, { as: 'developer' });
      const branch = await suite.data<Branch>('get_branch', { id: INFRA, branch: `${release}/1.2` }, 'developer');
      expect(branch).toMatchObject({
        protected: true,
        developers_can_push: true,
        developers_can_merge: true,
        can_push: true,
      });
      const found = await suite.data<Protection[]>('list_protected_branches', { id: INFRA, search: release });
      expect(found.map((p) => p.name)).toEqual([`${release}/*`]);
    });

    suite.pagingCase('list_protected_branches', async () => {
      await suite.call('protect_branch', { id: INFRA, name: `${suite.freshName('paged')}/*` });
      return { id: INFRA };
    });

    it('unprotects as a maintainer; 404 when the name is not protected', async () => {
      const release = suite.freshName('release');
      await suite.call('protect_branch', { id: INFRA, name: `${release}/*` });
      await suite.call('create_branch', { id: INFRA, branch: `${release}/1.2`, ref: 'main' });
      expect((await suite.refusal('unprotect_branch', { id: INFRA, name: `${release}/*` }, 'developer')).status).toBe(
        403,
      );
      expect((await suite.call('unprotect_branch', { id: INFRA, name: `${release}/*` })).status).toBe(204);
      expect((await suite.data<Branch>('get_branch', { id: INFRA, branch: `${release}/1.2` })).protected).toBe(false);
      expect((await suite.refusal('unprotect_branch', { id: INFRA, name: `${release}/*` })).status).toBe(404);
    });
  });

  describe('policy', () => {
    it('asks before the destructive operations and runs the others', () => {
      const kind = (name: string, raw: Record<string, unknown>, facts?: FactsReading) => {
        const op = suite.operation(name);
        return decide(op, validateInput(op, raw) as Record<string, unknown>, { readOnly: false }, undefined, facts)
          .kind;
      };
      expect(kind('delete_branch', { id: WEB, branch: 'x' })).toBe('approve');
      expect(kind('delete_merged_branches', { id: WEB })).toBe('approve');
      expect(kind('unprotect_branch', { id: WEB, name: 'main' })).toBe('approve');
      expect(kind('create_branch', { id: WEB, branch: 'x', ref: 'main' })).toBe('run');
      // A new rule is judged by the rules it joins (the most permissive matching rule wins): unread, it asks.
      expect(
        kind(
          'protect_branch',
          { id: WEB, name: 'x' },
          { read: true, facts: [{ name: 'main', push: 40, merge: 40, forcePush: false }] },
        ),
      ).toBe('run');
      expect(kind('protect_branch', { id: WEB, name: 'x' })).toBe('approve');
      expect(kind('list_branches', { id: WEB })).toBe('run');
      const op = suite.operation('create_branch');
      expect(decide(op, { id: WEB, branch: 'x', ref: 'main' }, { readOnly: true }).kind).toBe('deny');
    });
  });
});

suite.coverageCase();
