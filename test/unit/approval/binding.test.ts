// Approvals: bound to call, person, place and time; single use; two fast clicks run once.
import { describe, expect, it } from 'vitest';
import { BoundApprovals, canonicalJson, fingerprint } from '../../../src/approval/binding.js';

const call = { operation: 'delete_pipeline', input: { id: 'acme/web', pipeline_id: 7 }, requester: 'U1', place: 'C1' };

/** The requester's click in the same place, approving delete_pipeline with `input` as the click shows it now. */
const redeemDeletion = (store: BoundApprovals, id: string, input: Record<string, unknown>) =>
  store.redeem(id, { person: 'U1', place: 'C1', operation: 'delete_pipeline', input });

describe('BoundApprovals', () => {
  it('lets the requester approve once, in the same place', () => {
    const store = new BoundApprovals();
    const id = store.issue(call);
    const first = store.redeem(id, { person: 'U1', place: 'C1' });
    expect(first).toEqual({ ok: true, call });
    const second = store.redeem(id, { person: 'U1', place: 'C1' });
    expect(second.ok).toBe(false);
    expect(second.ok === false && second.reason).toMatch(/already used/);
  });

  it("ignores another person's click and keeps the ticket for the requester", () => {
    const store = new BoundApprovals();
    const id = store.issue(call);
    const other = store.redeem(id, { person: 'U2', place: 'C1' });
    expect(other).toEqual({ ok: false, reason: 'Only the person who asked for this call can approve it.' });
    expect(store.redeem(id, { person: 'U1', place: 'C1' }).ok).toBe(true);
  });

  it('refuses a click from another conversation', () => {
    const store = new BoundApprovals();
    const id = store.issue(call);
    expect(store.redeem(id, { person: 'U1', place: 'C9' }).ok).toBe(false);
  });

  it('refuses a late click', () => {
    let now = 1_000;
    const store = new BoundApprovals(60_000, () => now);
    const id = store.issue(call);
    now += 60_001;
    const late = store.redeem(id, { person: 'U1', place: 'C1' });
    expect(late.ok === false && late.reason).toMatch(/expired/);
  });

  it('refuses when the call changed since it was shown', () => {
    const store = new BoundApprovals();
    const id = store.issue(call);
    const changed = redeemDeletion(store, id, { id: 'acme/web', pipeline_id: 8 });
    expect(changed.ok === false && changed.reason).toMatch(/changed/);
  });

  it('accepts the same input written in another key order', () => {
    const store = new BoundApprovals();
    const id = store.issue(call);
    const same = redeemDeletion(store, id, { pipeline_id: 7, id: 'acme/web' });
    expect(same.ok).toBe(true);
  });

  it('runs a double click once: exactly one of two concurrent redemptions succeeds', async () => {
    const store = new BoundApprovals();
    const id = store.issue(call);
    const results = await Promise.all([0, 1].map(async () => store.redeem(id, { person: 'U1', place: 'C1' })));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });

  it('cancel withdraws only for the requester', () => {
    const store = new BoundApprovals();
    const id = store.issue(call);
    expect(store.cancel(id, 'U2')).toBe(false);
    expect(store.cancel(id, 'U1')).toBe(true);
    expect(store.size).toBe(0);
  });

  it('fingerprints canonically', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: undefined }] })).toBe('{"a":[{"d":2}],"b":1}');
    expect(fingerprint('x', { a: 1, b: 2 })).toBe(fingerprint('x', { b: 2, a: 1 }));
    expect(fingerprint('x', { a: 1 })).not.toBe(fingerprint('y', { a: 1 }));
  });
});
