// The approval port's contract, run against the adapters that hold an answer for later: the approval page's store and
// the 2026-07-28 request state. A human's yes approves only the exact call it was given for, and only once.
import { describe, expect, it } from 'vitest';
import { DurableApprovals } from '../../../src/approval/binding.js';
import { ApprovalPageStore } from '../../../src/approval/page-store.js';
import type { ApprovalAnswer, ApprovalCall } from '../../../src/approval/port.js';
import { RequestStateApprover } from '../../../src/mcp/request-state-approver.js';
import type { ServiceTokenChecker } from '../../../src/mcp/token-check.js';
import { MemoryStore } from '../../../src/state/store.js';
import { shown } from '../../../src/text/visible.js';

const call = (): ApprovalCall => ({
  operation: 'delete_pipeline',
  input: { id: 'acme/web', pipeline_id: 7, options: { keep_artifacts: false } },
  prompt: shown`Delete pipeline 7 of acme/web`,
  answers: { yes: shown`Yes, delete pipeline 7`, no: shown`No, change nothing` },
});

/** The same call with one character of one key changed: a nested key, so the whole input is covered, not its top. */
const oneKeyCharacterOff = (): ApprovalCall => ({
  ...call(),
  input: { id: 'acme/web', pipeline_id: 7, options: { keep_artifactS: false } },
});

/** One adapter as the contract drives it: ask about a call, then give the human's yes for the call about to run. */
interface Channel {
  ask(asked: ApprovalCall): Promise<{ approve(runs: ApprovalCall): Promise<ApprovalAnswer> }>;
}

/** Makes `target` hold exactly what `source` holds: the call waiting on the page is the object that will run. */
function becomes(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, structuredClone(source));
}

/** The contract's requests carry no service token of their own, so nothing is asked of the service. */
const noTokenToCheck: ServiceTokenChecker = {
  check: async () => {
    throw new Error('these requests carry no token to check');
  },
};

const channels: Record<string, () => Channel> = {
  'the approval page store': () => {
    const store = new ApprovalPageStore({ pageUrl: async () => 'http://127.0.0.1:9' });
    return {
      async ask(asked) {
        const opened = await store.open(asked);
        if (!opened.ok) throw new Error(opened.reason);
        const id = opened.approval.url.slice('http://127.0.0.1:9/approvals/'.length);
        return {
          async approve(runs) {
            becomes(asked.input, runs.input);
            const result = await store.answerFromChannel(id, 'approve', 'in the test');
            return result.status === 200 ? opened.approval.outcome : { approved: false, reason: result.message };
          },
        };
      },
    };
  },
  'the 2026-07-28 request state': () => {
    const approver = new RequestStateApprover(new DurableApprovals(new MemoryStore()), noTokenToCheck);
    const request = { formElicitation: true, caller: '127.0.0.1' };
    return {
      async ask(asked) {
        const question = await approver.ask(asked, request);
        if (!('asked' in question)) throw new Error(`not asked: ${JSON.stringify(question)}`);
        return {
          async approve(runs) {
            const answered = { id: question.asked.id, action: 'accept', content: { confirm: true } };
            const answer = await approver.ask(runs, { ...request, answered });
            if ('asked' in answer) throw new Error('asked again instead of reading the answer');
            return answer;
          },
        };
      },
    };
  },
};

describe.each(Object.entries(channels))('the approval port through %s', (_name, channel) => {
  it('approves the exact call it asked about', async () => {
    const asked = await channel().ask(call());
    expect(await asked.approve(call())).toEqual({ approved: true });
  });

  it('refuses a yes for a call that differs in one character of a key', async () => {
    const asked = await channel().ask(call());
    const answer = await asked.approve(oneKeyCharacterOff());
    expect(answer).toEqual({ approved: false, reason: expect.stringMatching(/changed/) });
  });

  it('refuses a second use of the same yes', async () => {
    const asked = await channel().ask(call());
    expect(await asked.approve(call())).toEqual({ approved: true });
    const again = await asked.approve(call());
    expect(again.approved).toBe(false);
    expect(again.approved === false && again.reason).toMatch(/already/);
  });
});
