// wait_for_pipeline through the SDK client against the sandbox: as an MCP task where the client asks for one, and
// otherwise as a blocking call with progress within the call deadline. The sandbox's clock stands still here, so its
// runner never moves a new pipeline: it stays pending until cancelled, and the test decides when it ends.
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ManualClock } from '../../src/sandbox/core/clock.js';
import { connectInMemory, resultText, useSandbox, startMcpHttpOn } from '../helpers/mcp.js';

const env = useSandbox({ clock: new ManualClock() });
const WEB = 'acme/web';

type Pipeline = { id: number; status: string };
type Waited = Pipeline & { wait: { finished: boolean; checks: number; waited_seconds: number } };

/** A new pipeline of acme/web, pending until something ends it. */
async function newPipeline(): Promise<Pipeline> {
  const res = await env.client.request<Pipeline>({
    method: 'POST',
    path: '/projects/acme%2Fweb/pipeline',
    body: { ref: 'main' },
    idempotent: false,
  });
  expect(res.data.status).toBe('pending');
  return res.data;
}

/** Ends a pipeline the way the sandbox lets one finish: cancelling it. */
async function finish(pipeline: Pipeline): Promise<void> {
  await env.client.request({
    method: 'POST',
    path: `/projects/acme%2Fweb/pipelines/${pipeline.id}/cancel`,
    idempotent: false,
  });
}

/** How many times the sandbox was asked for this pipeline. */
function checksOf(pipeline: Pipeline): number {
  return env.sandbox.requests.all().filter((r) => r.method === 'GET' && r.path.endsWith(`/pipelines/${pipeline.id}`))
    .length;
}

describe('wait_for_pipeline in tools/list', () => {
  it('is offered as a task, with wait_until_settled, on a server that declares tasks', async () => {
    const mcp = await connectInMemory({ client: env.client });
    const { tools } = await mcp.client.listTools();
    expect(tools.filter((t) => t.execution?.taskSupport).map((t) => [t.name, t.execution?.taskSupport])).toEqual([
      ['wait_for_pipeline', 'optional'],
      ['wait_until_settled', 'optional'],
    ]);
    expect(mcp.client.getServerCapabilities()?.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    await mcp.close();
  });
});

describe('wait_for_pipeline without a task', () => {
  it('blocks, reports each check as progress, and returns the pipeline once it finished', async () => {
    const mcp = await connectInMemory({ client: env.client });
    const pipeline = await newPipeline();
    const progress: string[] = [];
    let finished: Promise<void> | undefined;
    const result = await mcp.client.callTool(
      { name: 'wait_for_pipeline', arguments: { id: WEB, pipeline_id: pipeline.id } },
      undefined,
      {
        onprogress: (p) => {
          progress.push(String(p.message));
          // The first check has seen it pending: now it finishes, and a later check sees that.
          finished ??= finish(pipeline);
        },
      },
    );
    await finished;
    expect(result.isError, resultText(result)).toBeFalsy();
    const waited = result.structuredContent as Waited;
    expect(waited).toMatchObject({ id: pipeline.id, status: 'canceled', wait: { finished: true } });
    expect(waited.wait.checks).toBeGreaterThanOrEqual(2);
    expect(progress[0]).toBe(`check 1: pipeline #${pipeline.id} is pending`);
    expect(progress.at(-1)).toBe(`check ${waited.wait.checks}: pipeline #${pipeline.id} is canceled`);
    expect(checksOf(pipeline)).toBe(waited.wait.checks);
    await mcp.close();
  });

  it('ends within the call deadline with the pipeline still unfinished', async () => {
    const mcp = await connectInMemory({ client: env.client, callTimeoutMs: 2_500 });
    const pipeline = await newPipeline();
    const result = await mcp.client.callTool({
      name: 'wait_for_pipeline',
      arguments: { id: WEB, pipeline_id: pipeline.id },
    });
    expect(result.isError, resultText(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ id: pipeline.id, status: 'pending', wait: { finished: false } });
    await finish(pipeline);
    await mcp.close();
  });
});

describe('wait_for_pipeline as a task', () => {
  it('answers with a task at once, shows each check in tasks/get, and gives the finished pipeline as the task result', async () => {
    const mcp = await connectInMemory({ client: env.client });
    await mcp.client.listTools();
    const pipeline = await newPipeline();
    const seen: string[] = [];
    let taskId: string | undefined;
    let result: unknown;
    const stream = mcp.client.experimental.tasks.callToolStream(
      { name: 'wait_for_pipeline', arguments: { id: WEB, pipeline_id: pipeline.id } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    );
    for await (const message of stream) {
      if (message.type === 'taskCreated') {
        taskId = message.task.taskId;
        expect(message.task).toMatchObject({ status: 'working', ttl: 60_000 });
      } else if (message.type === 'taskStatus') {
        seen.push(`${message.task.status}: ${message.task.statusMessage ?? ''}`);
        if (message.task.statusMessage?.endsWith('is pending')) await finish(pipeline);
      } else if (message.type === 'result') {
        result = message.result;
      } else {
        throw message.error;
      }
    }
    expect(taskId).toEqual(expect.any(String));
    expect(seen).toContainEqual(
      expect.stringMatching(new RegExp(`^working: check \\d+: pipeline #${pipeline.id} is pending$`)),
    );
    const waited = (result as { structuredContent: Waited }).structuredContent;
    expect(seen.at(-1)).toBe(`completed: check ${waited.wait.checks}: pipeline #${pipeline.id} is canceled`);
    expect(waited).toMatchObject({ id: pipeline.id, status: 'canceled', wait: { finished: true } });
    const listed = await mcp.client.experimental.tasks.listTasks();
    expect(listed.tasks).toEqual([expect.objectContaining({ taskId, status: 'completed' })]);
    await mcp.close();
  });

  it('stops checking when the client cancels the task', async () => {
    const mcp = await connectInMemory({ client: env.client });
    const pipeline = await newPipeline();
    const created = await mcp.client.request(
      {
        method: 'tools/call',
        params: { name: 'wait_for_pipeline', arguments: { id: WEB, pipeline_id: pipeline.id }, task: {} },
      },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    // Bounded: the task checks at once, then every second or more.
    for (let i = 0; i < 50 && checksOf(pipeline) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(checksOf(pipeline)).toBeGreaterThan(0);
    const cancelled = await mcp.client.experimental.tasks.cancelTask(taskId);
    expect(cancelled.status).toBe('cancelled');
    const checks = checksOf(pipeline);
    // Longer than any pause between checks so far (1 s, then 1.5 s): a task still running would have checked again.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(checksOf(pipeline)).toBe(checks);
    expect((await mcp.client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
    await finish(pipeline);
    await mcp.close();
  });

  it('is refused in words for bad input, an unknown tool, and a tool that does not run as a task', async () => {
    const mcp = await connectInMemory({ client: env.client });
    const bad = await mcp.client
      .request(
        {
          method: 'tools/call',
          params: { name: 'wait_for_pipeline', arguments: { id: WEB, pipeline_id: 1, timeout_seconds: 0 }, task: {} },
        },
        CreateTaskResultSchema,
      )
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(McpError);
    expect((bad as McpError).message).toMatch(/timeout_seconds/);

    const notTask = await mcp.client
      .request(
        {
          method: 'tools/call',
          params: { name: 'get_pipeline', arguments: { id: WEB, pipeline_id: 1 }, task: {} },
        },
        CreateTaskResultSchema,
      )
      .catch((e: unknown) => e);
    expect(notTask).toBeInstanceOf(McpError);
    expect((notTask as McpError).code).toBe(-32601);
    expect((notTask as McpError).message).toMatch(/get_pipeline does not run as a task/);
    const unknown = await mcp.client
      .request(
        { method: 'tools/call', params: { name: 'no_such_tool', arguments: {}, task: {} } },
        CreateTaskResultSchema,
      )
      .catch((e: unknown) => e);
    expect((unknown as McpError).message).toMatch(/Unknown tool no_such_tool\./);
    expect((await mcp.client.experimental.tasks.listTasks()).tasks).toEqual([]);
    await mcp.close();
  });
});

describe('wait_for_pipeline as a task over Streamable HTTP', () => {
  it('runs in the session and its result is collected with tasks/result', async () => {
    const server = await startMcpHttpOn(env.client, { session: { toolsets: ['all'] } });
    const mcp = new Client({ name: 'http-task-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const pipeline = await newPipeline();
    await finish(pipeline);
    const created = await mcp.request(
      {
        method: 'tools/call',
        params: { name: 'wait_for_pipeline', arguments: { id: WEB, pipeline_id: pipeline.id }, task: { ttl: 30_000 } },
      },
      CreateTaskResultSchema,
    );
    // tasks/result waits for the task to end, then answers with the tool result.
    const result = await mcp.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({
      id: pipeline.id,
      status: 'canceled',
      wait: { finished: true, checks: 1 },
    });
    expect((await mcp.experimental.tasks.getTask(created.task.taskId)).status).toBe('completed');
    await mcp.close();
    await server.close();
  });
});
