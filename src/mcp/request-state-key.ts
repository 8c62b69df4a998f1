// The key that signs 2026-07-28 requestState, the same on every replica that may receive the echo: derived from
// FORGEOPS_SECRET; else agreed through the shared store, and agreed again whenever the store lost it; else this process's.
import { createHash, randomBytes } from 'node:crypto';
import type { StateStore } from '../state/store.js';

/** Where replicas without FORGEOPS_SECRET keep the key they share (the store is already trusted with approvals). */
const SHARED_KEY_NAME = 'mcp:request-state-key';
/** Keys still accepted besides the current one, so a question asked just before the replicas agreed anew can be answered. */
const EARLIER_KEYS_KEPT = 2;
const HEX_KEY = /^[0-9a-f]{64}$/;
/** What the SDK's codec emits: `v1.<body>.<mac>`, both parts base64url without padding. */
const STATE_PARTS = /^v1\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/;

/** What the SDK's requestState codec does, for one key. */
export interface StateCodec<T> {
  mint(payload: T, ctx: unknown): Promise<string>;
  verify(state: string, ctx: unknown): Promise<T>;
}

interface RequestStateKeyOptions {
  secret?: string;
  store: StateStore;
  /** Whether other replicas see the same store. */
  sharedStore: boolean;
}

/** The SDK's verify says 'mac' when the signature is not of its key (and 'expired', 'bind', 'malformed' otherwise). */
function signedWithAnotherKey(error: unknown): boolean {
  return (error as Error)?.message === 'mac';
}

/**
 * A requestState codec over the replicas' shared key. Each replica caches the key it read; Redis may lose it
 * (FLUSHALL, a restart without persistence), after which a replica starting then would pick a new one. So a question
 * is always signed with the key in the store now (put back there, set-if-absent, when missing), and an answer signed
 * by a key this replica does not know makes it read the store again before it is refused.
 */
export async function sharedStateCodec<T>(
  options: RequestStateKeyOptions,
  codecFor: (key: Uint8Array) => StateCodec<T>,
): Promise<StateCodec<T>> {
  return canonicalOnly(await keyedCodec(options, codecFor));
}

/**
 * Whether a requestState is spelled exactly as the codec emits it. The SDK decodes the signature with atob after
 * mapping `-_` to `+/`, so the standard alphabet, padding, whitespace and stray trailing bits would all decode to the
 * same signature: one state would have many accepted spellings. Decoding and encoding again must give it back byte
 * for byte.
 */
export function isCanonicalRequestState(state: string): boolean {
  const parts = STATE_PARTS.exec(state);
  if (!parts) return false;
  return parts.slice(1).every((part) => Buffer.from(part, 'base64url').toString('base64url') === part);
}

/** A codec that refuses, before any signature is checked, every requestState not in its one canonical spelling. */
function canonicalOnly<T>(codec: StateCodec<T>): StateCodec<T> {
  return {
    mint: (payload, ctx) => codec.mint(payload, ctx),
    verify: async (state, ctx) => {
      if (typeof state !== 'string' || !isCanonicalRequestState(state)) {
        throw new Error(
          'requestState is not in its canonical encoding (v1.<body>.<mac>, base64url without padding, as it was sent)',
        );
      }
      return codec.verify(state, ctx);
    },
  };
}

async function keyedCodec<T>(
  options: RequestStateKeyOptions,
  codecFor: (key: Uint8Array) => StateCodec<T>,
): Promise<StateCodec<T>> {
  if (options.secret) {
    return codecFor(
      new Uint8Array(createHash('sha256').update(`forgeops mcp requestState\0${options.secret}`).digest()),
    );
  }
  const own = randomBytes(32).toString('hex');
  if (!options.sharedStore) return codecFor(new Uint8Array(Buffer.from(own, 'hex')));
  const ring = new KeyRing(options.store, own, (hex) => codecFor(new Uint8Array(Buffer.from(hex, 'hex'))));
  await ring.agreed();
  return {
    mint: async (payload, ctx) => (await ring.agreed()).mint(payload, ctx),
    verify: (state, ctx) => ring.verify(state, ctx),
  };
}

class KeyRing<T> {
  /** By key, oldest first; the last is the one agreed most recently. */
  private readonly codecs = new Map<string, StateCodec<T>>();

  constructor(
    private readonly store: StateStore,
    private readonly own: string,
    private readonly make: (hex: string) => StateCodec<T>,
  ) {}

  /** The codec of the key in the store now. */
  async agreed(): Promise<StateCodec<T>> {
    return this.remember(await this.agreedKey());
  }

  async verify(state: string, ctx: unknown): Promise<T> {
    let refusal: unknown;
    const tried = [...this.codecs.keys()];
    for (const hex of [...tried].reverse()) {
      try {
        return await this.codecs.get(hex)!.verify(state, ctx);
      } catch (error) {
        if (!signedWithAnotherKey(error)) throw error;
        refusal ??= error;
      }
    }
    // None of the keys known here signed it: the replicas may have agreed on another since.
    const current = await this.agreedKey();
    this.remember(current);
    if (tried.includes(current)) throw refusal;
    return this.codecs.get(current)!.verify(state, ctx);
  }

  /** The key in the store now; when it is missing, the one this replica last agreed on goes back (set-if-absent, then read). */
  private async agreedKey(): Promise<string> {
    const kept = await this.store.get<string>(SHARED_KEY_NAME);
    if (typeof kept === 'string' && HEX_KEY.test(kept)) return kept;
    const proposal = [...this.codecs.keys()].at(-1) ?? this.own;
    await this.store.add(SHARED_KEY_NAME, proposal);
    const settled = await this.store.get<string>(SHARED_KEY_NAME);
    return typeof settled === 'string' && HEX_KEY.test(settled) ? settled : proposal;
  }

  private remember(hex: string): StateCodec<T> {
    const codec = this.codecs.get(hex) ?? this.make(hex);
    // Most recent last.
    this.codecs.delete(hex);
    this.codecs.set(hex, codec);
    while (this.codecs.size > EARLIER_KEYS_KEPT + 1) this.codecs.delete(this.codecs.keys().next().value!);
    return codec;
  }
}
