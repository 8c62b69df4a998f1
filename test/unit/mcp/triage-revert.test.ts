// Over MCP, a red triage names the revert of its first red commit as a tool call (revert_as_merge_request with the
// project and the short SHA); the tool stays out of the default toolset (its token budget) and is reached through
// the meta tools: found by words, run with run_operation, once.
import { describe, expect, it } from 'vitest';
import type { TriageReport } from '../../../src/operations/composed/triage.js';
import { resultText, useSandbox } from '../../helpers/mcp.js';
import { triageWebOverMcp, useMcpSession } from '../../helpers/mcp-session.js';

const env = useSandbox();
const mcp = useMcpSession(env, { toolsets: ['default'] });

describe('the revert step of a red triage over MCP', () => {
  it('is a short call of revert_as_merge_request, found by the meta tools, that opens the merge request once', async () => {
    const { result: triage, report } = await triageWebOverMcp(mcp.client);
    const sha8 = report.red_since!.first_red.sha.slice(0, 8);
    const revert = report.actions.find((a) => a.operation === 'revert_as_merge_request')!;
    expect(revert).toEqual({
      label: `Revert ${sha8} as a merge request`,
      operation: 'revert_as_merge_request',
      input: { id: 'acme/web', sha: sha8 },
    });
    expect(resultText(triage)).toContain('revert_as_merge_request');

    const listed = await mcp.client.listTools();
    expect(listed.tools.map((t) => t.name)).not.toContain('revert_as_merge_request');
    const found = await mcp.client.callTool({
      name: 'find_operations',
      arguments: { query: 'revert commit as merge request' },
    });
    expect(resultText(found)).toContain('revert_as_merge_request');

    // Its dry run lists the steps with the branch, the commit in full and the target; nothing is made.
    const culprit = report.red_since!.first_red.sha;
    const writes = () => env.sandbox.requests.all().filter((r) => r.method !== 'GET').length;
    const before = writes();
    const preview = await mcp.client.callTool({
      name: 'run_operation',
      arguments: { name: revert.operation, arguments: { ...revert.input, dry_run: true } },
    });
    expect(preview.isError).toBeFalsy();
    expect(JSON.parse(resultText(preview))).toMatchObject({
      dry_run: 'nothing was sent',
      needs_confirmation: false,
      steps: [
        `create branch revert-${sha8} from main with one commit reverting ${culprit}`,
        `open a merge request revert-${sha8} → main`,
      ],
    });
    expect(writes()).toBe(before);

    const made = await mcp.client.callTool({
      name: 'run_operation',
      arguments: { name: revert.operation, arguments: revert.input },
    });
    expect(made.isError).toBeFalsy();
    const outcome = JSON.parse(resultText(made)) as { outcome: string };
    expect(outcome.outcome).toMatch(
      new RegExp(`^Opened merge request !\\d+ "Revert ".*"" from revert-${sha8} into main of acme/web`),
    );
    // The result names the next call: merge it when its pipeline passes, pinned to the revert commit; a triage now
    // names the open revert and offers the same call first, never a second revert.
    const result = JSON.parse(resultText(made)) as {
      merge_request: { iid: number };
      revert_commit: { id: string };
      next_step: { operation: string; input: Record<string, unknown> };
    };
    const next = {
      operation: 'merge_merge_request',
      input: {
        id: 'acme/web',
        merge_request_iid: result.merge_request.iid,
        merge_when_pipeline_succeeds: true,
        sha: result.revert_commit.id,
      },
    };
    expect(result.next_step).toMatchObject(next);
    const after = (await mcp.client.callTool({ name: 'triage_project', arguments: { id: 'acme/web' } }))
      .structuredContent as unknown as TriageReport;
    expect(after.open_reverts?.[0]).toMatchObject({ iid: result.merge_request.iid, matched_by: 'branch' });
    expect(after.actions[0]).toMatchObject(next);
    expect(after.actions.some((a) => a.operation === 'revert_as_merge_request')).toBe(false);

    const again = await mcp.client.callTool({
      name: 'run_operation',
      arguments: { name: revert.operation, arguments: revert.input },
    });
    expect(again.isError).toBe(true);
    expect(resultText(again)).toContain(`from revert-${sha8} is already open`);
  });
});
