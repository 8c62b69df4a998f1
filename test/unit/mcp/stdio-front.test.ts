// The stdio quick start: what it answers itself, what it hands the SDK's server, and the selection it reads from
// the environment, which must be the configuration's.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config.js';
import { catalogOf } from '../../../src/mcp/catalog.js';
import type { PrebuiltStart } from '../../../src/mcp/prebuilt-catalog.js';
import { LimitedStdioTransport } from '../../../src/mcp/stdio.js';
import {
  quickToolsList,
  selectionFromEnvironment,
  StdioFront,
  type QuickSelection,
} from '../../../src/mcp/stdio-front.js';
import { operations } from '../../../src/operations/index.js';

const START: PrebuiltStart = {
  protocolVersions: ['2025-11-25', '2025-06-18'],
  latestProtocolVersion: '2025-11-25',
  serverInfo: { name: 'forgeops', version: '0' },
  capabilities: { tools: { listChanged: false } },
  instructions: { withMeta: 'with meta', withoutMeta: 'without meta' },
};
const TOOLS = catalogOf(operations).tools;
const DEFAULT: QuickSelection = { toolsets: [], tools: [], readOnly: false, apps: true };

const line = (message: object) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;
const initialize = (id: number, protocolVersion = '2025-06-18') =>
  line({
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'test', version: '1' } },
  });

function openFront(selection = DEFAULT) {
  const input = new PassThrough();
  const output = new PassThrough();
  const written: Array<{ id: number; result: Record<string, unknown> }> = [];
  output.on('data', (chunk: Buffer) => {
    for (const text of chunk.toString().split('\n').filter(Boolean)) written.push(JSON.parse(text));
  });
  const front = StdioFront.open({ start: START, tools: TOOLS, selection, input, output });
  if (!front) throw new Error('no front for this selection');
  let wanted = false;
  void front.handoverWanted.then(() => {
    wanted = true;
  });
  return { front, input, written, wanted: () => wanted };
}

/** Lets the streams deliver what was written and a setImmediate run. */
const settle = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

describe('the stdio quick start', () => {
  it('answers initialize as the SDK does: the revision asked when known, else the latest', async () => {
    const known = openFront();
    known.input.write(initialize(0, '2025-06-18'));
    const unknown = openFront();
    unknown.input.write(initialize(0, '1999-01-01'));
    await settle();
    expect(known.written[0].result).toEqual({
      protocolVersion: '2025-06-18',
      capabilities: START.capabilities,
      serverInfo: START.serverInfo,
      instructions: 'with meta',
    });
    expect(unknown.written[0].result.protocolVersion).toBe('2025-11-25');
  });

  it('answers tools/list with the selected tools, then wants to hand over, with nothing unanswered to pass on', async () => {
    const { front, input, written, wanted } = openFront();
    input.write(initialize(0) + line({ method: 'notifications/initialized' }) + line({ id: 1, method: 'tools/list' }));
    await settle();
    expect(written.map((answer) => answer.id)).toEqual([0, 1]);
    expect((written[1].result.tools as unknown[]).length).toBe(quickToolsList(TOOLS, DEFAULT)?.list({}).length);
    expect(wanted()).toBe(true);
    const handover = front.handOver();
    expect(handover.answered).toEqual([0, 1]);
    // All three replayed, in order, so the server holds the same session.
    expect(
      handover.prelude
        .toString()
        .split('\n')
        .filter(Boolean)
        .map((text) => JSON.parse(text).method),
    ).toEqual(['initialize', 'notifications/initialized', 'tools/list']);
  });

  it('leaves every message it does not answer, and all after it, to the server, unanswered', async () => {
    const { front, input, written, wanted } = openFront();
    const rest = `${line({ id: 2, method: 'ping' })}${line({ id: 3, method: 'tools/list' })}{"jsonrpc":"2.0","id":4,`;
    input.write(initialize(0) + rest);
    await settle();
    expect(written.map((answer) => answer.id)).toEqual([0]);
    expect(wanted()).toBe(true);
    const handover = front.handOver();
    expect(handover.answered).toEqual([0]);
    expect(handover.prelude.toString()).toBe(initialize(0) + rest);
  });

  it('does not answer tools/list before initialize', async () => {
    const { front, input, written, wanted } = openFront();
    input.write(line({ id: 1, method: 'tools/list' }));
    await settle();
    expect(written).toEqual([]);
    expect(wanted()).toBe(true);
    expect(front.handOver().answered).toEqual([]);
  });

  it('is not opened for a selection that names nothing: the usual start says why', () => {
    expect(quickToolsList(TOOLS, { ...DEFAULT, toolsets: ['rockets'] })).toBeUndefined();
  });
});

describe('the server taking over', () => {
  it('reads the quick start prelude first and drops its own answers to the requests already answered', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const sent: string[] = [];
    output.on('data', (chunk: Buffer) => sent.push(...chunk.toString().split('\n').filter(Boolean)));
    const transport = new LimitedStdioTransport({
      input,
      output,
      prelude: Buffer.from(initialize(0) + line({ id: 2, method: 'ping' })),
      answered: [0],
    });
    const received: unknown[] = [];
    transport.onmessage = (message) => received.push(message);
    await transport.start();
    input.write(line({ id: 3, method: 'ping' }));
    await settle();
    expect(received.map((message) => (message as { id: number }).id)).toEqual([0, 2, 3]);
    await transport.send({ jsonrpc: '2.0', id: 0, result: {} });
    await transport.send({ jsonrpc: '2.0', id: 2, result: {} });
    // Once dropped, an id is an ordinary id again.
    await transport.send({ jsonrpc: '2.0', id: 0, result: {} });
    await settle();
    expect(sent.map((text) => JSON.parse(text).id)).toEqual([2, 0]);
    await transport.close();
  });
});

describe('the selection read from the environment', () => {
  it.each([
    {},
    { FORGEOPS_TOOLSETS: 'pipelines, releases' },
    { FORGEOPS_TOOLSETS: 'all', FORGEOPS_READ_ONLY: 'yes' },
    { FORGEOPS_TOOLS: 'get_pipeline,find_operations', FORGEOPS_READ_ONLY: '0' },
    { FORGEOPS_APPS: 'off' },
    { FORGEOPS_APPS: 'on', FORGEOPS_READ_ONLY: '' },
  ])('is the configuration policy for %o', (env) => {
    const { readOnly, toolsets, tools, apps } = parseConfig(env).policy;
    expect(selectionFromEnvironment(env, {})).toEqual({ toolsets, tools, readOnly, apps });
  });

  it('gives the command line the last word, as the CLI does', () => {
    expect(selectionFromEnvironment({ FORGEOPS_TOOLSETS: 'all' }, { toolsets: 'pipelines', tools: '' })).toEqual({
      ...DEFAULT,
      toolsets: ['pipelines'],
    });
  });

  it.each([
    [{ FORGEOPS_READ_ONLY: 'maybe' }, {}],
    [{ FORGEOPS_APPS: 'sometimes' }, {}],
    [{ FORGEOPS_ENV_FILE: '/etc/forgeops.env' }, {}],
    [{}, { envFile: 'forgeops.env' }],
  ])('is none where the configuration reads more or refuses a value: %o %o', (env, options) => {
    expect(selectionFromEnvironment(env, options)).toBeUndefined();
  });
});
