// The demo seed: accounts behind the fixed tokens, real git history, every pipeline status, releases; and
// sandboxes that share the seed template but not each other's changes.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { DEMO_TOKENS } from '../../../src/sandbox/core/demo-accounts.js';
import { api } from './sandbox-client.js';

let first: Sandbox;
let second: Sandbox;
beforeAll(async () => {
  [first, second] = await Promise.all([startSandbox(), startSandbox()]);
});
afterAll(async () => {
  await Promise.all([first.close(), second.close()]);
});

describe('accounts', () => {
  test('each demo token signs in its user; only root is an administrator', async () => {
    const expected = {
      admin: 'root',
      maintainer: 'alice',
      developer: 'bob',
      reporter: 'carol',
      guest: 'dave',
      outsider: 'erin',
    };
    for (const [role, username] of Object.entries(expected)) {
      const answer = await api(first, 'GET', '/user', { token: DEMO_TOKENS[role as keyof typeof expected] });
      expect(answer.data.username).toBe(username);
      expect(first.store.findUser(username)!.is_admin).toBe(role === 'admin');
    }
    expect(first.tokens).toBe(DEMO_TOKENS);
  });

  test('access levels in acme follow the role names', () => {
    const acme = first.store.findGroup('acme')!;
    const level = (username: string) => first.store.groupAccess(first.store.findUser(username)!, acme);
    expect([level('alice'), level('bob'), level('carol'), level('dave'), level('erin')]).toEqual([40, 30, 20, 10, 0]);
    expect(first.store.findGroup('acme/platform')!.visibility).toBe('private');
    expect(first.store.scimTokens.get(DEMO_TOKENS.scim)).toBe(acme.id);
  });
});

describe('repositories', () => {
  test('acme/web has history by several authors on several days, three branches, two tags', async () => {
    const repo = first.store.findProject('acme/web')!.repo;
    const log = await repo.text(['log', '--all', '--format=%an|%ad', '--date=short']);
    const entries = log.split('\n');
    expect(entries.length).toBe(15);
    expect(new Set(entries.map((e) => e.split('|')[0])).size).toBe(3);
    // One commit a day, but for the last day's two (main going red, then staying red).
    expect(new Set(entries.map((e) => e.split('|')[1])).size).toBe(14);
    expect(await repo.branchExists('main')).toBe(true);
    expect(await repo.branchExists('feature/dark-mode')).toBe(true);
    expect(await repo.branchExists('feature/search')).toBe(true);
    expect(await repo.tagExists('v1.0.0')).toBe(true);
    expect(await repo.tagExists('v1.1.0')).toBe(true);
  });

  test("acme/web's main merges feature/search, whose commits are dated between main's own", async () => {
    const repo = first.store.findProject('acme/web')!.repo;
    const titles = async (...options: string[]) =>
      (await repo.text(['log', ...options, '--format=%s', 'main'])).split('\n');
    const merges = (await repo.text(['log', '--merges', '--format=%H %P', 'main'])).split('\n');
    expect(merges).toHaveLength(1);
    const [merge, mainTip, featureTip] = merges[0].split(' ');
    expect(featureTip).toBe(await repo.resolveCommit('feature/search'));
    // Both sides moved on after the feature branch started, so neither parent contains the other.
    const isAncestor = (a: string, b: string) =>
      repo.run(['merge-base', '--is-ancestor', a, b], { okCodes: [1] }).then((r) => r.exitCode === 0);
    expect([await isAncestor(mainTip, featureTip), await isAncestor(featureTip, mainTip)]).toEqual([false, false]);
    // The tree is what git itself makes of merging the two parents: a real merge, not a commit with two parents.
    const merged = await repo.text(['merge-tree', '--write-tree', mainTip, featureTip]);
    expect(merged).toBe(await repo.text(['rev-parse', `${merge}^{tree}`]));
    expect((await repo.listFiles(merge)).has('src/search/query.ts')).toBe(true);

    // Each way of walking the history gives its own answer.
    const byDate = await titles();
    const topo = await titles('--topo-order');
    const firstParent = await titles('--first-parent');
    expect(byDate.indexOf('Add the search results page')).toBeGreaterThan(
      byDate.indexOf('Add date formatting helper and getting started guide'),
    );
    expect(topo.indexOf('Add the search results page')).toBeLessThan(
      topo.indexOf('Add date formatting helper and getting started guide'),
    );
    expect(new Set(topo)).toEqual(new Set(byDate));
    expect(firstParent).not.toContain('Add product search');
    expect(firstParent.length).toBe(byDate.length - 2);
  });

  test('files in nested folders, with spaces, a README, the CI file and a binary', async () => {
    const repo = first.store.findProject('acme/web')!.repo;
    const files = await repo.listFiles((await repo.resolveCommit('main'))!);
    for (const path of [
      'README.md',
      '.ci.yml',
      'src/utils/format date.ts',
      'docs/getting started.md',
      'src/components/button.ts',
    ]) {
      expect(files.has(path)).toBe(true);
    }
    const png = await repo.run(['cat-file', 'blob', files.get('public/logo.png')!.oid]);
    expect(png.stdout.subarray(1, 4).toString()).toBe('PNG');
  });

  test('two sandboxes have the same seed but separate repositories', async () => {
    const a = first.store.findProject('acme/web')!;
    const b = second.store.findProject('acme/web')!;
    expect(await a.repo.resolveCommit('main')).toBe(await b.repo.resolveCommit('main'));
    expect(a.repo.dir).not.toBe(b.repo.dir);
    await a.repo.commit({
      branch: 'main',
      message: 'Only in the first sandbox',
      author: { name: 'Bob Chen', email: 'bob@acme.example' },
      actions: [{ action: 'create', file_path: 'only-here.txt', content: Buffer.from('x') }],
    });
    expect(await a.repo.resolveCommit('main')).not.toBe(await b.repo.resolveCommit('main'));
    const third = await startSandbox();
    try {
      expect(await third.store.findProject('acme/web')!.repo.resolveCommit('main')).toBe(
        await b.repo.resolveCommit('main'),
      );
    } finally {
      await third.close();
    }
  });
});

describe('pipelines and releases', () => {
  test('every status, a YAML error and variables are seeded; ids are the same in every sandbox', () => {
    const pipelines = first.store.projects.flatMap((p) => p.pipelines);
    expect(new Set(pipelines.map((p) => p.status))).toEqual(
      new Set(['running', 'pending', 'success', 'failed', 'canceled', 'skipped']),
    );
    expect(pipelines.filter((p) => p.yaml_errors !== null)).toHaveLength(1);
    expect(pipelines.filter((p) => p.variables.length > 0).length).toBeGreaterThan(1);
    // The seeded ones: a commit made since (as above) starts a pipeline of its own, with a source.
    const ids = (box: Sandbox) =>
      box.store.projects.map((p) =>
        p.pipelines.filter((pipeline) => pipeline.source === undefined).map((pipeline) => pipeline.id),
      );
    expect(ids(first)).toEqual(ids(second));
  });

  test('pipelines point at real commits of their ref', async () => {
    for (const project of first.store.projects) {
      for (const pipeline of project.pipelines) {
        const commit = await project.repo.getCommit(pipeline.sha);
        expect(new Date(commit.committed_date).getTime()).toBe(pipeline.committed_at!.getTime());
      }
    }
  });

  test('releases have asset links and milestones that exist', () => {
    for (const project of first.store.projects) {
      for (const release of project.releases) {
        expect(release.links.length).toBeGreaterThan(0);
        for (const id of release.milestone_ids) expect(project.milestones.some((m) => m.id === id)).toBe(true);
      }
    }
    expect(first.store.projects.filter((p) => p.releases.length === 2).map((p) => p.full_path)).toEqual([
      'acme/web',
      'acme/platform/payments-api',
    ]);
  });
});
