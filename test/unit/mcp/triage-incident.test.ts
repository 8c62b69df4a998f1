// Over MCP, a red triage's incident-issue step is a short call (open_incident_issue with the project), not the issue's
// whole text escaped into the result: the model calls it, and the issue is written from a triage at that moment.
import { describe, expect, it } from 'vitest';
import { resultText, useSandbox } from '../../helpers/mcp.js';
import { triageWebOverMcp, useMcpSession } from '../../helpers/mcp-session.js';

const env = useSandbox();
const mcp = useMcpSession(env, { toolsets: ['default'] });

describe('triage_project over MCP', () => {
  it('offers the incident issue as open_incident_issue on the project, and that call opens it (through run_operation)', async () => {
    const { result: triage, report } = await triageWebOverMcp(mcp.client);
    expect(report.verdict).toBe('red');
    // Broken, not flaky: the verdict and its evidence in the structured report and in the text a model reads.
    expect(report.failure).toMatchObject({
      kind: 'broken',
      evidence: expect.stringMatching(/^test failed on 2 of 2 runs since [0-9a-f]{8}$/),
    });
    expect(resultText(triage)).toContain(report.failure!.evidence);
    expect(report.red_since?.first_red).toMatchObject({
      since: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      red_for: expect.stringMatching(/\d+ (d|h|min)/),
    });
    const incident = report.actions.find((a) => a.label === 'Open incident issue')!;
    expect(incident).toEqual({
      label: 'Open incident issue',
      operation: 'open_incident_issue',
      input: { id: 'acme/web' },
    });
    // The step costs a model a few tokens, not the issue's description.
    expect(JSON.stringify(incident).length).toBeLessThan(120);
    expect(resultText(triage)).not.toContain('"description"');

    const opened = await mcp.client.callTool({
      name: 'run_operation',
      arguments: { name: incident.operation, arguments: incident.input },
    });
    expect(opened.isError).toBeFalsy();
    expect((JSON.parse(resultText(opened)) as { outcome: string }).outcome).toMatch(
      /^Opened incident issue #\d+ "main is red: test failing" in acme\/web/,
    );
    const again = await mcp.client.callTool({
      name: 'run_operation',
      arguments: { name: incident.operation, arguments: incident.input },
    });
    expect(again.isError).toBe(true);
    expect(resultText(again)).toMatch(/already open: #\d+/);
  });
});
