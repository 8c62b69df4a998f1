// A 2026-07-28 requestState is accepted only in the one spelling the codec emits: every other spelling of the same
// bytes (standard alphabet, padding, whitespace, stray trailing bits, case) is refused before its signature counts.
import { describe, expect, it } from 'vitest';
import { createRequestStateCodec } from '@modelcontextprotocol/server';
import { sharedStateCodec } from '../../../src/mcp/request-state-key.js';
import { MemoryStore } from '../../../src/state/store.js';

type Payload = { ticket: string };

function codec() {
  return sharedStateCodec<Payload>(
    { secret: 'a secret only this test knows', store: new MemoryStore(), sharedStore: false },
    (key) => createRequestStateCodec<Payload>({ key, ttlSeconds: 60 }),
  );
}

/** Another letter for the last character with the same six-bit prefix's first four bits: atob drops the other two. */
function strayTrailingBits(mac: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(mac.at(-1)!);
  return mac.slice(0, -1) + alphabet[last ^ 1];
}

/** Every other spelling of one state's signature that a lenient base64 decoder reads as the same bytes, or nearly. */
function variants(state: string): Record<string, string> {
  const dot = state.lastIndexOf('.');
  const head = state.slice(0, dot + 1);
  const mac = state.slice(dot + 1);
  return {
    'standard alphabet': head + mac.replaceAll('-', '+').replaceAll('_', '/'),
    padding: `${head}${mac}=`,
    'a space inside': `${head}${mac.slice(0, 10)} ${mac.slice(10)}`,
    'a newline at the end': `${state}\n`,
    'leading whitespace': ` ${state}`,
    'stray trailing bits': head + strayTrailingBits(mac),
    'upper-case prefix': `V1${state.slice(2)}`,
  };
}

describe('requestState in its canonical encoding only', () => {
  it('refuses every other spelling of a state and still accepts the one it minted', async () => {
    const states = await codec();
    // Mint until the signature holds both characters whose standard-alphabet twins a lenient decoder maps back.
    let state = '';
    for (let i = 0; i < 200 && !/-.*_|_.*-/.test(state.slice(state.lastIndexOf('.') + 1)); i++) {
      state = await states.mint({ ticket: `approval-${i}` }, {});
    }
    expect(state).toMatch(/\.[^.]*(-[^.]*_|_[^.]*-)[^.]*$/);
    for (const [how, spelled] of Object.entries(variants(state))) {
      expect(spelled, how).not.toBe(state);
      await expect(states.verify(spelled, {}), how).rejects.toThrow(/canonical encoding/);
    }
    // A case change spells other bytes: canonical, and refused by the signature.
    const dot = state.lastIndexOf('.');
    const recased = state.slice(0, dot + 1) + state.slice(dot + 1).replace(/[a-z]/, (c) => c.toUpperCase());
    await expect(states.verify(recased, {})).rejects.toThrow('mac');
    expect(await states.verify(state, {})).toMatchObject({ ticket: expect.stringMatching(/^approval-/) });
  });
});
