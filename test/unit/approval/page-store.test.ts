// The approval page's store on its own: what runs is what was shown, expiry by the clock, a cap, a bounded memory of answers.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { ApprovalPageStore, sameSecret } from '../../../src/approval/page-store.js';
import type { ApprovalCall } from '../../../src/approval/port.js';
import { escapeHtml, openCommandRunner, pageHosts } from '../../../src/approval/page.js';
import { shown } from '../../../src/text/visible.js';

const BASE = 'http://127.0.0.1:9';
const request = (): ApprovalCall => ({
  operation: 'delete_pipeline',
  input: { id: 'acme/web', pipeline_id: 7 },
  prompt: shown`Delete pipeline 7`,
  answers: { yes: shown`Yes, delete pipeline 7`, no: shown`No, change nothing` },
});
const idOf = (url: string) => url.slice(`${BASE}/approvals/`.length);

async function openOne(approvals: ApprovalPageStore, call = request()) {
  const opened = await approvals.open(call);
  if (!opened.ok) throw new Error(opened.reason);
  const id = idOf(opened.approval.url);
  return { ...opened.approval, id, nonce: approvals.view(id)!.nonce, call };
}

describe('ApprovalPageStore', () => {
  it('refuses an approval when the call changed after it was shown: what runs is what was approved', async () => {
    const approvals = new ApprovalPageStore({ pageUrl: async () => BASE });
    const approval = await openOne(approvals);
    approval.call.input.pipeline_id = 8;
    expect((await approvals.answer(approval.id, { nonce: approval.nonce, decision: 'approve' })).status).toBe(410);
    expect(await approval.outcome).toEqual({
      approved: false,
      reason: 'The call changed since it was approved; nothing was run.',
    });
  });

  it('tells the human who opens a link of a stopped replica that the call ended with it, and runs nothing', async () => {
    const approvals = new ApprovalPageStore({ pageUrl: async () => BASE, replicaId: 'r2' });
    const mine = await openOne(approvals);
    expect(mine.id).toMatch(/^r2\./);
    const fromR1 = 'r1.AbCdEfGhIjKlMnOpQrStUvWx';
    expect(approvals.whyClosed(fromR1)).toBe(
      'This approval waited on replica r1, which has stopped: the call ended with it and nothing was run. Ask the assistant to try again.',
    );
    expect(await approvals.answer(fromR1, { nonce: 'x', decision: 'approve' })).toEqual({
      status: 410,
      message: approvals.whyClosed(fromR1),
    });
    expect(approvals.whyClosed('r2.AbCdEfGhIjKlMnOpQrStUvWx')).toMatch(/^There is no such approval waiting/);
    expect(approvals.pending).toBe(1);
  });

  it('judges expiry by its clock when the answer comes, whatever the timers did', async () => {
    let now = 1_000_000;
    const approvals = new ApprovalPageStore({ pageUrl: async () => BASE, ttlMs: 60_000, now: () => now });
    const approval = await openOne(approvals);
    now += 60_001;
    expect(approvals.view(approval.id)).toBeUndefined();
    expect(approvals.whyClosed(approval.id)).toMatch(/expired/);
    expect((await approvals.answer(approval.id, { nonce: approval.nonce, decision: 'approve' })).status).toBe(410);
    expect((await approval.outcome).approved).toBe(false);
    expect(approvals.pending).toBe(0);
  });

  it('caps the approvals waiting at once, and frees a place when one ends', async () => {
    const approvals = new ApprovalPageStore({ pageUrl: async () => BASE, maxPending: 2 });
    const first = await openOne(approvals);
    await openOne(approvals);
    const third = await approvals.open(request());
    expect(third.ok).toBe(false);
    first.withdraw('the client cancelled');
    expect(await first.outcome).toEqual({ approved: false, reason: 'the client cancelled' });
    expect((await approvals.open(request())).ok).toBe(true);
    approvals.closeAll('shutting down');
    expect(approvals.pending).toBe(0);
  });

  it('answers only "approve" or "deny", and only with the page nonce', async () => {
    const approvals = new ApprovalPageStore({ pageUrl: async () => BASE });
    const approval = await openOne(approvals);
    expect((await approvals.answer(approval.id, { nonce: approval.nonce, decision: 'yes' })).status).toBe(400);
    expect((await approvals.answer(approval.id, { nonce: `${approval.nonce}x`, decision: 'approve' })).status).toBe(
      403,
    );
    expect(
      (await approvals.answer('unknown-approval-id-000', { nonce: approval.nonce, decision: 'approve' })).status,
    ).toBe(410);
    expect(approvals.pending).toBe(1);
    approval.withdraw('done');
  });

  it('says the page cannot be served rather than failing the call', async () => {
    const approvals = new ApprovalPageStore({
      pageUrl: async () => {
        throw new Error('port 8751 is in use');
      },
    });
    expect(await approvals.open(request())).toEqual({
      ok: false,
      reason: 'The approval page could not be served (port 8751 is in use); nothing was changed.',
    });
  });
});

describe('page helpers', () => {
  it('compares secrets of any length in constant time', () => {
    expect(sameSecret('a passphrase', 'a passphrase')).toBe(true);
    expect(sameSecret('a passphrase', 'a passphrase!')).toBe(false);
    expect(sameSecret('', 'x')).toBe(false);
  });

  it('escapes everything HTML gives meaning to', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;',
    );
  });

  it('answers to the loopback names of its port, and to the public address when one is set', () => {
    expect(pageHosts('127.0.0.1', 8750, true)).toEqual(['127.0.0.1:8750', 'localhost:8750', '[::1]:8750']);
    expect(pageHosts('10.0.0.5', 8750, false, 'https://Forge.Example/')).toEqual(['10.0.0.5:8750', 'forge.example']);
  });
});

describe('FORGEOPS_APPROVAL_OPEN', () => {
  it("runs the operator's command with the link as its own last argument, no shell between", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'forgeops-approval-open-'));
    try {
      const out = join(dir, 'opened');
      // Written aside, then renamed: the file never exists half-written while the test polls for it.
      const script =
        'const fs = require("node:fs"); fs.writeFileSync(process.argv[1] + ".tmp", JSON.stringify(process.argv.slice(2))); fs.renameSync(process.argv[1] + ".tmp", process.argv[1])';
      const link = 'http://127.0.0.1:9/approvals/abc;touch pwned';
      openCommandRunner([process.execPath, '-e', script, out, 'first'], silentLogger)({ url: link });
      for (let i = 0; i < 500 && !existsSync(out); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(['first', link]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('logs a command that cannot run, and goes on', async () => {
    const lines: string[] = [];
    const log = {
      ...silentLogger,
      warn: (line: string) => {
        lines.push(line);
      },
    };
    openCommandRunner(['/nonexistent/forgeops-opener'], log)({ url: 'http://127.0.0.1:9/approvals/x' });
    for (let i = 0; i < 500 && lines.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lines[0]).toMatch(/FORGEOPS_APPROVAL_OPEN: cannot run '\/nonexistent\/forgeops-opener'/);
  });
});
