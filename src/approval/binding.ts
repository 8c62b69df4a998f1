// Binding an approval to one exact call (a hash over every character of its operation and input, keys included), the
// person who asked, where, and an expiry; usable once; capped. In memory (BoundApprovals) or in the state store (DurableApprovals).
import { createHash, randomBytes } from 'node:crypto';
import type { ButtonPremise } from '../operations/composed/button-premise.js';
import type { StateStore } from '../state/state-store.js';

interface PendingCall {
  operation: string;
  input: Record<string, unknown>;
  /** Who asked (e.g. a Slack user id); only they may approve. */
  requester: string;
  /** Where they asked (e.g. a Slack channel id); the approval must come from there. */
  place: string;
  /**
   * What the button that asked stood on when it was drawn: checked again when the approval comes, since the world it
   * was pressed in may be gone by then (the branch green again). It can only stop the call, so it is not fingerprinted.
   */
  premise?: ButtonPremise;
}

/** `expired`: the approval's time ran out (counted apart from a refusal). */
type Redemption = { ok: true; call: PendingCall } | { ok: false; reason: string; expired?: boolean };

interface Binding {
  call: PendingCall;
  fingerprint: string;
  expiresAt: number;
  /** The key that counts this approval against the caps while it can be answered (durable approvals only). */
  open?: string;
}

/** Who clicks Approve, where, and (when the channel has it) the call they saw: it must be the one issued. */
interface Redeemer {
  person: string;
  place: string;
  operation?: string;
  input?: Record<string, unknown>;
}

const UNKNOWN: Redemption = { ok: false, reason: 'This approval was already used or is unknown; nothing was run.' };

/** The checks that leave the approval in place: only its requester, in its place, may spend it. */
function checkClaimant(binding: Binding | undefined, by: Redeemer): Redemption | undefined {
  if (!binding) return UNKNOWN;
  if (binding.call.requester !== by.person)
    return { ok: false, reason: 'Only the person who asked for this call can approve it.' };
  if (binding.call.place !== by.place) return { ok: false, reason: 'This approval belongs to another conversation.' };
  return undefined;
}

/** The checks after the approval was spent: a late or altered answer runs nothing (and cannot be tried again). */
function checkSpent(binding: Binding, by: Redeemer, now: number): Redemption {
  // A durable approval may have been edited where it is stored: what runs must still be what was shown.
  if (fingerprint(binding.call.operation, binding.call.input) !== binding.fingerprint) {
    return { ok: false, reason: 'The call changed since it was approved; nothing was run.' };
  }
  if (now > binding.expiresAt)
    return { ok: false, reason: 'This approval expired; ask again to get a fresh one.', expired: true };
  if (
    by.operation !== undefined &&
    by.input !== undefined &&
    fingerprint(by.operation, by.input) !== binding.fingerprint
  ) {
    return { ok: false, reason: 'The call changed since it was approved; nothing was run.' };
  }
  return { ok: true, call: binding.call };
}

/** Stable JSON (sorted keys) so the same input always has the same fingerprint. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function fingerprint(operation: string, input: Record<string, unknown>): string {
  return createHash('sha256')
    .update(`${operation}\n${canonicalJson(input)}`)
    .digest('hex');
}

export class BoundApprovals {
  private readonly bindings = new Map<string, Binding>();

  constructor(
    private readonly ttlMs = 5 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Records a call awaiting approval; the returned id goes into the Approve button (or a link). `idPrefix` (a
   * replica's name and a dot) lets a balancer send the answer back to the process that holds the approval.
   */
  issue(call: PendingCall, idPrefix = ''): string {
    this.sweep();
    const id = `${idPrefix}${randomBytes(18).toString('base64url')}`;
    this.bindings.set(id, {
      call,
      fingerprint: fingerprint(call.operation, call.input),
      expiresAt: this.now() + this.ttlMs,
    });
    return id;
  }

  /**
   * Spends an approval. It is removed before anything else is checked for the requester,
   * so two fast clicks can run the call only once; a wrong person's click leaves it for the right one.
   */
  redeem(id: string, by: Redeemer): Redemption {
    const binding = this.bindings.get(id);
    const refused = checkClaimant(binding, by);
    if (refused || !binding) return refused ?? UNKNOWN;
    this.bindings.delete(id);
    return checkSpent(binding, by, this.now());
  }

  /** Withdraws an approval (the Cancel button). */
  cancel(id: string, person: string): boolean {
    const binding = this.bindings.get(id);
    if (!binding || binding.call.requester !== person) return false;
    return this.bindings.delete(id);
  }

  get size(): number {
    return this.bindings.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, t] of this.bindings) if (now > t.expiresAt) this.bindings.delete(id);
  }
}

/**
 * Where durable approvals live: a small async key-value store with expiry (a JSON file, Redis…). `take` must be
 * atomic (get and delete in one step) so that of two concurrent redemptions only one gets the approval.
 */
export type ApprovalStorage = Pick<StateStore, 'get' | 'set' | 'take' | 'delete' | 'count'>;

interface DurableApprovalOptions {
  ttlMs?: number;
  now?: () => number;
  /** Approvals one requester may have waiting at once. */
  maxPerRequester?: number;
  /** Approvals waiting at once, over everyone. */
  maxPending?: number;
}

/** Kept after expiry for this long, so a late click is told "expired" rather than "unknown". */
const EXPIRED_GRACE_MS = 60 * 60_000;
/**
 * Marks an approval that can still be answered, `confirm-open:<counted as>:<random>`, expiring with the answer window.
 * Store keys keep their older `confirm` prefix: approvals already stored stay readable.
 */
const OPEN_PREFIX = 'confirm-open:';

/**
 * The same approvals as BoundApprovals, kept in an async store so that a restart (or another replica) loses none.
 * An approval is kept under `confirm:<requester>:<random>` (the id handed out is the key's tail) an hour past its expiry
 * for a late click's sake; what the caps count is a marker that lives only as long as the approval can be answered, so
 * questions nobody answers stop holding anyone's slots once they expire.
 */
export class DurableApprovals {
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly store: ApprovalStorage,
    private readonly options: DurableApprovalOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * Records a call awaiting approval, or says why not (too many waiting). `countAs` is whose share of the per-requester
   * cap the approval takes, when a channel tells its clients apart more finely than by requester (default: the requester).
   */
  async issue(
    call: PendingCall,
    options: { countAs?: string } = {},
  ): Promise<{ ok: true; id: string } | { ok: false; reason: string }> {
    const mine = `${OPEN_PREFIX}${options.countAs ?? call.requester}:`;
    const { maxPerRequester = 5, maxPending = 1000 } = this.options;
    if ((await this.store.count(mine)) >= maxPerRequester) {
      return {
        ok: false,
        reason: `You already have ${maxPerRequester} calls waiting for your approval; approve or decline those first. Nothing was run.`,
      };
    }
    if ((await this.store.count(OPEN_PREFIX)) >= maxPending) {
      return {
        ok: false,
        reason: 'Too many calls are waiting for approval right now; try again in a few minutes. Nothing was run.',
      };
    }
    const nonce = randomBytes(18).toString('base64url');
    const id = `${call.requester}:${nonce}`;
    const open = `${mine}${nonce}`;
    const binding: Binding = {
      call,
      fingerprint: fingerprint(call.operation, call.input),
      expiresAt: this.now() + this.ttlMs,
      open,
    };
    await this.store.set(`confirm:${id}`, binding, { ttlMs: this.ttlMs + EXPIRED_GRACE_MS });
    await this.store.set(open, 1, { ttlMs: this.ttlMs });
    return { ok: true, id };
  }

  /** As BoundApprovals.redeem; the store's atomic take makes two fast clicks run the call once. */
  async redeem(id: string, by: Redeemer): Promise<Redemption> {
    const key = `confirm:${id}`;
    const refused = checkClaimant(await this.store.get<Binding>(key), by);
    if (refused) return refused;
    const binding = await this.store.take<Binding>(key);
    if (!binding) return UNKNOWN;
    await this.closeBinding(binding);
    return checkSpent(binding, by, this.now());
  }

  /** The call an approval stands for, without spending it (to show it again). */
  async peek(id: string): Promise<PendingCall | undefined> {
    return (await this.store.get<Binding>(`confirm:${id}`))?.call;
  }

  /** Withdraws an approval (the Cancel button); only its requester may. */
  async cancel(id: string, person: string): Promise<boolean> {
    const binding = await this.store.get<Binding>(`confirm:${id}`);
    if (!binding || binding.call.requester !== person) return false;
    const deleted = await this.store.delete(`confirm:${id}`);
    await this.closeBinding(binding);
    return deleted;
  }

  /**
   * An approval spent or withdrawn no longer counts against the caps. Failing to say so fails nothing: the marker expires
   * with the answer window anyway, and a redemption already taken must go on.
   */
  private async closeBinding(binding: Binding): Promise<void> {
    if (binding.open?.startsWith(OPEN_PREFIX)) await this.store.delete(binding.open).catch(() => false);
  }
}
