// The sandbox closes issues on merge as the service does: a closing statement ("Closes #5", "fixes group/project#6",
// "Resolves <link to an issue>") in a merge request's title, description or commit messages closes the issues it names
// once the merge request is merged into the default branch, by the person who merged it where they may edit them,
// with a system note; a statement the pattern does not read (other case, inline code, no keyword) closes nothing.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { issuesToClose } from '../../../src/sandbox/areas/work-items/closing-patterns.js';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import type { Project } from '../../../src/sandbox/core/store.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { api, type Role } from './sandbox-client.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ clock: new ManualClock(Date.now()) });
});
afterAll(() => sandbox.close());

const path = (project: string) => `/projects/${encodeURIComponent(project)}`;
const WEB = 'acme/web';
const PAYMENTS = 'acme/platform/payments-api';

type Issue = { iid: number; state: string; closed_by: { username: string } | null };

let branches = 0;
/** A merge request into `target` from a new branch whose one commit has `message`, merged as `as`; its iid. */
async function mergeOne(
  o: { title?: string; description?: string; message?: string; target?: string; as?: Role } = {},
): Promise<number> {
  const branch = `closing/${++branches}`;
  const target = o.target ?? 'main';
  const committed = await api(sandbox, 'POST', `${path(WEB)}/repository/commits`, {
    as: 'maintainer',
    json: {
      branch,
      start_branch: target,
      commit_message: o.message ?? `Change ${branches}`,
      actions: [{ action: 'create', file_path: `closing/${branches}.txt`, content: `${branches}\n` }],
    },
  });
  expect(committed.status, committed.text).toBe(201);
  const opened = await api(sandbox, 'POST', `${path(WEB)}/merge_requests`, {
    as: 'maintainer',
    json: {
      source_branch: branch,
      target_branch: target,
      title: o.title ?? `Merge ${branch}`,
      description: o.description,
    },
  });
  expect(opened.status, opened.text).toBe(201);
  const merged = await api(sandbox, 'PUT', `${path(WEB)}/merge_requests/${opened.data.iid}/merge`, {
    as: o.as ?? 'maintainer',
  });
  expect([merged.status, merged.data?.state], merged.text).toEqual([200, 'merged']);
  return opened.data.iid;
}

/** A new open issue of `project`, made by its maintainer; its iid. */
async function freshIssue(project = WEB): Promise<number> {
  const made = await api(sandbox, 'POST', `${path(project)}/issues`, {
    as: 'maintainer',
    json: { title: `To close ${++branches}` },
  });
  expect(made.status, made.text).toBe(201);
  return made.data.iid;
}

const issue = async (iid: number, project = WEB): Promise<Issue> =>
  (await api(sandbox, 'GET', `${path(project)}/issues/${iid}`, { as: 'maintainer' })).data;
const systemNotes = async (iid: number, project = WEB): Promise<string[]> =>
  (await api(sandbox, 'GET', `${path(project)}/issues/${iid}/notes`, { as: 'maintainer' })).data
    .filter((n: { system: boolean }) => n.system)
    .map((n: { body: string }) => n.body);

describe('a merge into the default branch', () => {
  test('closes what its description names, by whoever merged it, with a note; a mere mention stays open', async () => {
    const [closing, mentioned] = [await freshIssue(), await freshIssue()];
    const mr = await mergeOne({ description: `Fixes #${closing}. Related to #${mentioned}.` });
    expect(await issue(closing)).toMatchObject({ state: 'closed', closed_by: { username: 'alice' } });
    expect(await systemNotes(closing)).toContain(`closed via merge request !${mr}`);
    expect((await issue(mentioned)).state).toBe('opened');
  });

  test("closes what its title and its commits' messages name, lists and links included", async () => {
    const [byTitle, byCommit, listed, alsoListed, linked] = [
      await freshIssue(),
      await freshIssue(),
      await freshIssue(),
      await freshIssue(),
      await freshIssue(),
    ];
    await mergeOne({
      title: `Resolve #${byTitle}`,
      message: `Tidy the header\n\nCloses #${byCommit}, #${listed} and #${alsoListed}\nImplements ${sandbox.url}/acme/web/-/issues/${linked}`,
    });
    for (const iid of [byTitle, byCommit, listed, alsoListed, linked]) expect((await issue(iid)).state).toBe('closed');
  });

  test("closes another project's issue the merger may edit, naming the merge request with its project", async () => {
    const other = await freshIssue(PAYMENTS);
    const mr = await mergeOne({ description: `Closes ${PAYMENTS}#${other}` });
    expect((await issue(other, PAYMENTS)).state).toBe('closed');
    expect(await systemNotes(other, PAYMENTS)).toContain(`closed via merge request ${WEB}!${mr}`);
  });

  test("leaves open an issue the merger may not edit (bob's private project is not alice's to see)", async () => {
    await mergeOne({ description: 'Closes bob/scratchpad#1' });
    const read = await api(sandbox, 'GET', `${path('bob/scratchpad')}/issues/1`, { as: 'developer' });
    expect([read.status, read.data.state]).toEqual([200, 'opened']);
  });

  test('closes nothing through a statement the pattern does not read', async () => {
    const iid = await freshIssue();
    await mergeOne({
      description: [
        `CLOSES #${iid}`,
        `Closes \`#${iid}\``,
        `Closes &#35;${iid}`,
        `Closest #${iid}`,
        `prefix #${iid}`,
        `Closes\t#${iid}`,
      ].join('\n'),
    });
    expect((await issue(iid)).state).toBe('opened');
  });
});

test('a merge into another branch closes nothing', async () => {
  const made = await api(sandbox, 'POST', `${path(WEB)}/repository/branches?branch=release/closing&ref=main`, {
    as: 'maintainer',
  });
  expect(made.status).toBe(201);
  const iid = await freshIssue();
  await mergeOne({ description: `Closes #${iid}`, target: 'release/closing' });
  expect((await issue(iid)).state).toBe('opened');
});

describe('the closing statements a text holds', () => {
  const web = { full_path: 'acme/web' } as Project;
  const named = (text: string) => issuesToClose(text, web, 'https://forge.example').map((n) => `${n.path}#${n.iid}`);

  test.each([
    ...['Close', 'Closes', 'Closed', 'Closing', 'Fix', 'Fixes', 'Fixed', 'Fixing'].flatMap((k) => [k, k.toLowerCase()]),
    ...[
      'Resolve',
      'Resolves',
      'Resolved',
      'Resolving',
      'Implement',
      'Implements',
      'Implemented',
      'Implementing',
    ].flatMap((k) => [k, k.toLowerCase()]),
  ])('"%s #5" closes #5', (keyword) => {
    expect(named(`Something. ${keyword} #5`)).toEqual(['acme/web#5']);
  });

  test.each([
    ['Fixes: #5', ['acme/web#5']],
    ['closes issue #5 and issues #6, #7', ['acme/web#5', 'acme/web#6', 'acme/web#7']],
    ['Closes #5,#6 , and #7', ['acme/web#5', 'acme/web#6', 'acme/web#7']],
    ['Closes JIRA-1, #5 (a key ends the statement) but Closes #6, JIRA-2', ['acme/web#6']],
    ['Closes billing#5 and /acme/platform/infra#6', ['acme/billing#5', 'acme/platform/infra#6']],
    [
      'Closes https://forge.example/acme/web/-/issues/8. Fixes https://forge.example/g/p/issues/9',
      ['acme/web#8', 'g/p#9'],
    ],
    ['Closes https://elsewhere.example/acme/web/-/issues/8', []],
    ['Closes #5 and see #6', ['acme/web#5']],
    ['CLOSES #5, Closest #5, prefix #5, Closes `#5`, Closes \\#5', []],
  ])('%s', (text, expected) => {
    expect(named(text)).toEqual(expected);
  });
});
