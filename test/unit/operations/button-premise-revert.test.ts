// The premise of a Revert button against the sandbox: it fails when the commit is no longer on the branch (a force
// push rewrote it), when a commit on the branch reverted it, and when a merge request made outside forgeops's
// revert-<sha8> branch reverts it (open or merged), each said in words; a revert reverted in turn, a merge request that
// only mentions the commit, or one into another branch leave it standing. Each test makes its own branch of acme/web.
import { describe, expect, it } from 'vitest';
import { PremiseCheck } from '../../../src/operations/composed/button-premise.js';
import { operations } from '../../../src/operations/index.js';
import { useSandbox } from '../../helpers/mcp.js';

const env = useSandbox();
const premises = new PremiseCheck(() => operations);
const PROJECT = 'acme/web';
const path = (rest: string) => `/projects/${encodeURIComponent(PROJECT)}${rest}`;
type Token = 'maintainer' | 'developer';

async function send<T>(method: 'GET' | 'POST' | 'PUT', route: string, body: Record<string, unknown>, as: Token) {
  const answer = await env.client.request<T>({
    method,
    path: path(route),
    ...(method === 'GET' ? { query: body as Record<string, string> } : { body }),
    token: env.sandbox.tokens[as],
    idempotent: method === 'GET',
  });
  return answer.data;
}

let made = 0;
/** A fresh branch of main with one commit on it, the culprit a Revert button names. */
async function branchWithCulprit(): Promise<{
  branch: string;
  culprit: { id: string; title: string; parent: string };
}> {
  made += 1;
  const branch = `premise-${made}`;
  await send('POST', '/repository/branches', { branch, ref: 'main' }, 'maintainer');
  const culprit = await commit(branch, `Break the build ${made}`);
  const parent = await send<{ parent_ids: string[] }>('GET', `/repository/commits/${culprit.id}`, {}, 'maintainer');
  return { branch, culprit: { ...culprit, parent: parent.parent_ids[0] } };
}

async function commit(branch: string, title: string, extra: Record<string, unknown> = {}) {
  return send<{ id: string; title: string }>(
    'POST',
    '/repository/commits',
    {
      branch,
      commit_message: title,
      actions: [{ action: 'create', file_path: `premise/${title.replace(/\W+/g, '-')}.txt`, content: title }],
      ...extra,
    },
    'maintainer',
  );
}

const check = (branch: string, sha: string, as: Token = 'maintainer') =>
  premises.check(
    { kind: 'revert', project: PROJECT, ref: branch, sha: sha.slice(0, 8) },
    { client: env.client, token: env.sandbox.tokens[as] },
  );

/** A revert of the culprit made as the service's Revert button makes it: a branch, the revert, a merge request by bob. */
async function revertRequestByBob(
  target: string,
  culprit: { id: string; title: string },
  source: string,
  from = target,
) {
  await send('POST', '/repository/branches', { branch: source, ref: from }, 'developer');
  await send('POST', `/repository/commits/${culprit.id}/revert`, { branch: source }, 'developer');
  return send<{ iid: number }>(
    'POST',
    '/merge_requests',
    {
      source_branch: source,
      target_branch: target,
      title: `Revert "${culprit.title}"`,
      description: `This reverts commit ${culprit.id}.`,
    },
    'developer',
  );
}

describe('the premise of a Revert button', () => {
  it('holds while the commit is on the branch and nothing reverted it', async () => {
    const { branch, culprit } = await branchWithCulprit();
    await commit(branch, 'Unrelated change after it');
    expect(await check(branch, culprit.id)).toEqual({ holds: true });
  });

  it('fails once a force push dropped the commit from the branch, and says so', async () => {
    const { branch, culprit } = await branchWithCulprit();
    await commit(branch, `Rewritten history ${made}`, { start_sha: culprit.parent, force: true });
    expect(await check(branch, culprit.id)).toEqual({
      holds: false,
      changed: `${culprit.id.slice(0, 8)} is no longer on ${branch} (history was rewritten); nothing was reverted.`,
    });
    // A commit the service no longer knows at all (collected after the rewrite) is on no branch either.
    expect(await check(branch, 'c0ffee0c0ffee0c0')).toEqual({
      holds: false,
      changed: `c0ffee0c is no longer on ${branch} (history was rewritten); nothing was reverted.`,
    });
  });

  it('fails once a commit on the branch reverted it, and stands again when that revert is reverted', async () => {
    const { branch, culprit } = await branchWithCulprit();
    await commit(branch, 'Unrelated change after it');
    const revert = await send<{ id: string }>(
      'POST',
      `/repository/commits/${culprit.id}/revert`,
      { branch },
      'maintainer',
    );
    expect(await check(branch, culprit.id)).toEqual({
      holds: false,
      changed: `${culprit.id.slice(0, 8)} was reverted already by commit ${revert.id.slice(0, 8)} on ${branch}; nothing was reverted.`,
    });
    // Reverting the revert brings the commit back: a Revert of it is what is needed again.
    await send('POST', `/repository/commits/${revert.id}/revert`, { branch }, 'maintainer');
    expect(await check(branch, culprit.id)).toEqual({ holds: true });
  });

  it("fails while a merge request made outside forgeops reverts it, naming it and its author, and once it's merged", async () => {
    const { branch, culprit } = await branchWithCulprit();
    const short = culprit.id.slice(0, 8);
    const mr = await revertRequestByBob(branch, culprit, `bob-undo-${made}`);
    expect(await check(branch, culprit.id)).toEqual({
      holds: false,
      changed: `merge request !${mr.iid} reverting ${short} is open already (opened by bob); nothing was reverted.`,
    });
    await send('PUT', `/merge_requests/${mr.iid}/merge`, {}, 'maintainer');
    // Merged, its revert commit is on the branch too: the merge request is what is named.
    expect(await check(branch, culprit.id)).toEqual({
      holds: false,
      changed: `${short} was reverted already by !${mr.iid} (opened by bob); nothing was reverted.`,
    });
  });

  it('fails for a squashed revert merge request whose commit on the branch no longer says it reverts', async () => {
    const { branch, culprit } = await branchWithCulprit();
    const mr = await revertRequestByBob(branch, culprit, `bob-squash-${made}`);
    await send(
      'PUT',
      `/merge_requests/${mr.iid}/merge`,
      { squash: true, squash_commit_message: 'Undo it' },
      'maintainer',
    );
    expect(await check(branch, culprit.id)).toEqual({
      holds: false,
      changed: `${culprit.id.slice(0, 8)} was reverted already by !${mr.iid} (opened by bob); nothing was reverted.`,
    });
  });

  it('reads an abbreviated sha typed by hand in a description', async () => {
    const { branch, culprit } = await branchWithCulprit();
    const source = `bob-typed-${made}`;
    await send('POST', '/repository/branches', { branch: source, ref: branch }, 'developer');
    const mr = await send<{ iid: number }>(
      'POST',
      '/merge_requests',
      {
        source_branch: source,
        target_branch: branch,
        title: 'Back out the broken build',
        description: `This reverts commit ${culprit.id.slice(0, 7)}; the build broke.`,
      },
      'developer',
    );
    expect(await check(branch, culprit.id)).toMatchObject({
      holds: false,
      changed: expect.stringContaining(`merge request !${mr.iid} reverting`),
    });
  });

  it('stands beside a merge request that only mentions the commit, or reverts it into another branch', async () => {
    const { branch, culprit } = await branchWithCulprit();
    const source = `bob-mention-${made}`;
    await send('POST', '/repository/branches', { branch: source, ref: branch }, 'developer');
    await send(
      'POST',
      '/merge_requests',
      {
        source_branch: source,
        target_branch: branch,
        title: `Follow-up to ${culprit.id.slice(0, 8)}`,
        description: `Fixes the tests ${culprit.id} broke.`,
      },
      'developer',
    );
    await revertRequestByBob('main', culprit, `bob-elsewhere-${made}`, branch);
    expect(await check(branch, culprit.id)).toEqual({ holds: true });
  });
});
