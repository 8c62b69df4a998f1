// A nudge (a webhook saying the project changed) that comes while a check is reading: that check may have read the
// branch just before the change, so one more check follows it and tells the change at once, not an interval later.
import { describe, expect, it } from 'vitest';
import type { ApiResponse, ApiTransport } from '../../../src/http/types.js';
import type { TriageReport } from '../../../src/operations/composed/triage.js';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { MemoryStore } from '../../../src/state/store.js';
import { BranchWatch, type WatchEvent } from '../../../src/watch/branch-watch.js';
import { useSandbox } from '../../helpers/mcp.js';
import { callAnsweringYes } from '../../helpers/call-as-yes.js';
import { operationsWithTriageAt } from '../../helpers/watch.js';

const clock = new ManualClock();
const env = useSandbox({ clock });
/** The registry with triage reading the sandbox's clock. */
const ops = operationsWithTriageAt(() => clock.now());

/** Runs an operation as a person who answers yes to any approval request. */
const call = async (name: string, input: Record<string, unknown>): Promise<void> => {
  await callAnsweringYes(env.client, name, input);
};

describe('a nudge during a check', () => {
  it('is followed by one more check, which tells the change the running check read too early', async () => {
    // The watch's branch reads are answered at once by the service but handed over only when released.
    let held: { release: () => void } | undefined;
    const client: ApiTransport = {
      async request<T>(req: Parameters<ApiTransport['request']>[0]): Promise<ApiResponse<T>> {
        const answer = await env.client.request<T>(req);
        if (
          held === undefined &&
          req.path.endsWith('/pipelines') &&
          req.query?.per_page === 1 &&
          req.query?.updated_after !== undefined
        ) {
          await new Promise<void>((resolve) => {
            held = { release: resolve };
          });
        }
        return answer;
      },
    };
    const events: WatchEvent[] = [];
    const watch = new BranchWatch({
      project: 'acme/web',
      operations: () => ops,
      runContext: () => ({ client }),
      store: new MemoryStore({ now: () => clock.now() }),
      clock,
      onEvent: (event) => {
        events.push(event);
      },
    });
    expect(await watch.check()).toBe('changed');
    expect(events.map((e) => e.kind)).toEqual(['red']);
    const head = (events[0] as { report: TriageReport }).report.head_pipeline!.id;

    const reading = watch.check();
    await expect.poll(() => held).toBeDefined();
    // The branch changes after the running check read it; the webhook's nudge arrives.
    await call('retry_pipeline', { id: 'acme/web', pipeline_id: head });
    const nudged = watch.check();
    held!.release();
    expect(await reading).toBe('unchanged');
    expect(await nudged).toBe('changed');
    expect(events.map((e) => e.kind)).toEqual(['red', 'running']);
  });
});
