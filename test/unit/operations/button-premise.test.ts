// The premise check of incident buttons against the sandbox, read as the presser: a green branch or a pipeline that is
// no longer the branch's latest changes a write button's premise (said in words), a read button stays with a note.
import { describe, expect, it } from 'vitest';
import { PremiseCheck } from '../../../src/operations/composed/button-premise.js';
import { operations } from '../../../src/operations/index.js';
import { useSandbox } from '../../helpers/mcp.js';

const env = useSandbox();
const premises = new PremiseCheck(() => operations);
const asAlice = () => ({ client: env.client, token: env.sandbox.tokens.maintainer });

async function latestPipeline(project: string): Promise<{ id: number; status: string }> {
  const listed = await env.client.request<Array<{ id: number; status: string }>>({
    method: 'GET',
    path: `/projects/${encodeURIComponent(project)}/pipelines`,
    query: { ref: 'main', per_page: 1 },
    idempotent: true,
  });
  return listed.data[0];
}

describe('PremiseCheck', () => {
  it('holds for a retry of the red branch latest failed pipeline', async () => {
    const latest = await latestPipeline('acme/web');
    expect(latest.status).toBe('failed');
    const answer = await premises.check(
      { kind: 'retry', project: 'acme/web', ref: 'main', pipeline_id: latest.id },
      asAlice(),
    );
    expect(answer).toEqual({ holds: true });
  });

  it('says the branch is green again for every write kind, and only notes it for the log', async () => {
    const project = 'acme/platform/infra';
    const green = await latestPipeline(project);
    expect(green.status).toBe('success');
    const since = new RegExp(`^main is green again since (\\d\\d:\\d\\d UTC|recently) \\(#${green.id}\\); `);
    for (const [kind, nothing] of [
      ['retry', 'nothing was retried.'],
      ['revert', 'nothing was reverted.'],
      ['incident', 'no incident issue was opened.'],
      ['mute', 'nothing was muted.'],
    ] as const) {
      const answer = await premises.check({ kind, project, ref: 'main', pipeline_id: 1, sha: 'abcdef12' }, asAlice());
      expect(answer.holds).toBe(false);
      const changed = (answer as { changed: string }).changed;
      expect(changed).toMatch(since);
      expect(changed.endsWith(nothing)).toBe(true);
    }
    const log = await premises.check({ kind: 'log', project, ref: 'main', pipeline_id: 1 }, asAlice());
    expect(log).toMatchObject({ holds: true, note: expect.stringMatching(since) });
  });

  it('fails as the presser would: a private project erin may not read is not checked for her', async () => {
    const erin = { client: env.client, token: env.sandbox.tokens.outsider };
    await expect(
      premises.check({ kind: 'retry', project: 'acme/platform/payments-api', ref: 'main', pipeline_id: 1 }, erin),
    ).rejects.toThrow(/404/);
  });
});
