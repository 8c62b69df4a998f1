// Confirmation tickets for chat front ends: a human's approval bound to one exact call, person, place and time, usable once.
import { createHash, randomBytes } from 'node:crypto';

export interface PendingCall {
  operation: string;
  input: Record<string, unknown>;
  /** Who asked (e.g. a Slack user id); only they may confirm. */
  requester: string;
  /** Where they asked (e.g. a Slack channel id); the confirmation must come from there. */
  place: string;
}

export type Redemption =
  | { ok: true; call: PendingCall }
  | { ok: false; reason: string };

interface Ticket {
  call: PendingCall;
  fingerprint: string;
  expiresAt: number;
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
  return createHash('sha256').update(`${operation}\n${canonicalJson(input)}`).digest('hex');
}

export class ConfirmationStore {
  private readonly tickets = new Map<string, Ticket>();

  constructor(private readonly ttlMs = 5 * 60_000, private readonly now: () => number = Date.now) {}

  /** Records a call awaiting approval; the returned id goes into the Confirm button. */
  issue(call: PendingCall): string {
    this.sweep();
    const id = randomBytes(18).toString('base64url');
    this.tickets.set(id, { call, fingerprint: fingerprint(call.operation, call.input), expiresAt: this.now() + this.ttlMs });
    return id;
  }

  /**
   * Spends a ticket. The ticket is removed before anything else is checked for the requester,
   * so two fast clicks can run the call only once; a wrong person's click leaves it for the right one.
   */
  redeem(id: string, by: { person: string; place: string; operation?: string; input?: Record<string, unknown> }): Redemption {
    const ticket = this.tickets.get(id);
    if (!ticket) return { ok: false, reason: 'This confirmation was already used or is unknown; nothing was run.' };
    if (ticket.call.requester !== by.person) {
      return { ok: false, reason: 'Only the person who asked for this call can confirm it.' };
    }
    if (ticket.call.place !== by.place) return { ok: false, reason: 'This confirmation belongs to another conversation.' };
    this.tickets.delete(id);
    if (this.now() > ticket.expiresAt) return { ok: false, reason: 'This confirmation expired; ask again to get a fresh one.' };
    if (by.operation !== undefined && by.input !== undefined && fingerprint(by.operation, by.input) !== ticket.fingerprint) {
      return { ok: false, reason: 'The call changed since it was confirmed; nothing was run.' };
    }
    return { ok: true, call: ticket.call };
  }

  /** Withdraws a ticket (the Cancel button). */
  cancel(id: string, person: string): boolean {
    const ticket = this.tickets.get(id);
    if (!ticket || ticket.call.requester !== person) return false;
    return this.tickets.delete(id);
  }

  get size(): number {
    return this.tickets.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, t] of this.tickets) if (now > t.expiresAt) this.tickets.delete(id);
  }
}
