// Slack's v0 signature: what Slack signs passes; a forged signature, an altered body or a stale timestamp does not.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifySlackSignature } from '../../../src/slack/signature.js';

const secret = '8f742231b10e8888abcd99yyyzzz85a5';
const body = 'token=x&team_id=T1&user_id=U1&command=%2Fforge&text=help';
const now = 1_700_000_000_000;
const ts = String(now / 1000);
// Computed here from Slack's documented recipe, not with the code under test.
const slackSigned = `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`;

describe('verifySlackSignature', () => {
  it('accepts what Slack signs', () => {
    expect(verifySlackSignature(secret, { body, timestamp: ts, signature: slackSigned }, now)).toEqual({ ok: true });
    expect(
      verifySlackSignature(secret, { body: Buffer.from(body), timestamp: ts, signature: slackSigned }, now + 299_000)
        .ok,
    ).toBe(true);
  });

  it('refuses a forged signature, another secret, an altered body', () => {
    const forged = `v0=${'0'.repeat(64)}`;
    expect(verifySlackSignature(secret, { body, timestamp: ts, signature: forged }, now)).toEqual({
      ok: false,
      reason: 'signature does not match',
    });
    expect(verifySlackSignature('another-secret', { body, timestamp: ts, signature: slackSigned }, now).ok).toBe(false);
    expect(verifySlackSignature(secret, { body: `${body}&x=1`, timestamp: ts, signature: slackSigned }, now).ok).toBe(
      false,
    );
  });

  it('refuses a timestamp more than five minutes away, either way, even with a good signature', () => {
    const stale = verifySlackSignature(secret, { body, timestamp: ts, signature: slackSigned }, now + 301_000);
    expect(stale.ok === false && stale.reason).toMatch(/stale/);
    expect(verifySlackSignature(secret, { body, timestamp: ts, signature: slackSigned }, now - 301_000).ok).toBe(false);
  });

  it('refuses missing and malformed headers', () => {
    expect(verifySlackSignature(secret, { body, timestamp: undefined, signature: slackSigned }, now).ok).toBe(false);
    expect(verifySlackSignature(secret, { body, timestamp: 'soon', signature: slackSigned }, now).ok).toBe(false);
    expect(verifySlackSignature(secret, { body, timestamp: ts, signature: undefined }, now).ok).toBe(false);
    expect(verifySlackSignature(secret, { body, timestamp: ts, signature: slackSigned.slice(0, -2) }, now).ok).toBe(
      false,
    );
  });
});
