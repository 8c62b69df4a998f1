// The one metrics wrapper around a tool call's steps: each way a call can end gets its outcome label on /metrics,
// the call counts as in flight while it runs, and what a step threw reaches the caller unchanged.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callsInFlight } from '../../../../src/health.js';
import { answerMetrics, type CallOutcome, enableMetrics, resetMetrics } from '../../../../src/metrics.js';
import { type CallEnding, meteredCall, outcomeOf } from '../../../../src/mcp/tool-core/metered.js';
import { textResult } from '../../../../src/mcp/results.js';

const fine = textResult('done');
const error = textResult('no', true);

/** Every kind of ending, with the label /metrics must show for it. */
const ENDINGS: Array<[string, CallEnding, CallOutcome]> = [
  ['done', { kind: 'done', result: fine }, 'ok'],
  ['done with an error result', { kind: 'done', result: error }, 'failed'],
  ['previewed', { kind: 'previewed', result: fine }, 'ok'],
  ['refused', { kind: 'refused', result: error }, 'refused'],
  ['declined', { kind: 'declined', result: error }, 'declined'],
  ['asked', { kind: 'asked', result: { content: [] } }, 'asked'],
  ['failed', { kind: 'failed', result: error }, 'failed'],
  ['threw before sending', { kind: 'threw', error: new Error('boom'), sent: false }, 'refused'],
  ['threw once sending', { kind: 'threw', error: new Error('boom'), sent: true }, 'failed'],
];

async function scrape(): Promise<string> {
  let text = '';
  const res = {
    writeHead: () => ({
      end: (body: string) => {
        text = body;
      },
    }),
  } as unknown as ServerResponse;
  await answerMetrics({ method: 'GET', url: '/metrics' } as IncomingMessage, res);
  return text;
}

/** The count of calls of one operation with one outcome, 0 when there is no such series. */
async function counted(operation: string, outcome: string): Promise<number> {
  const line = (await scrape())
    .split('\n')
    .find(
      (l) =>
        l.startsWith('forgeops_calls_total{') &&
        l.includes(`operation="${operation}"`) &&
        l.includes(`outcome="${outcome}"`),
    );
  return line ? Number(line.split(' ').pop()) : 0;
}

beforeAll(async () => {
  await enableMetrics();
});
beforeEach(() => {
  resetMetrics();
});

describe('outcomeOf', () => {
  it.each(ENDINGS)('labels a call that ended %s', (_name, ending, label) => {
    expect(outcomeOf(ending)).toBe(label);
  });
});

describe('meteredCall', () => {
  it.each(ENDINGS)('records a call that ended %s under its label, once', async (name, ending, label) => {
    const operation = `op_${name.replaceAll(' ', '_')}`;
    const run = meteredCall(operation, async () => ending);
    if (ending.kind === 'threw') await expect(run).rejects.toBe(ending.error);
    else expect(await run).toBe(ending.result);
    expect(await counted(operation, label)).toBe(1);
    const others = (['ok', 'failed', 'refused', 'declined', 'asked'] as const).filter((o) => o !== label);
    for (const other of others) expect(await counted(operation, other)).toBe(0);
  });

  it('counts the call as in flight while its steps run, so a drain waits for it', async () => {
    let during = -1;
    await meteredCall('op_in_flight', async () => {
      during = callsInFlight();
      return { kind: 'done', result: fine };
    });
    expect(during).toBe(callsInFlight() + 1);
  });

  it('records a call whose chain itself threw as failed', async () => {
    const broken = new Error('not a step');
    await expect(
      meteredCall('op_broken', async () => {
        throw broken;
      }),
    ).rejects.toBe(broken);
    expect(await counted('op_broken', 'failed')).toBe(1);
  });
});
