// The hidden-character audit's generator and checks, shared by its two files (the renderings and MCP's question),
// which run in separate workers because each walks every hidden code point and is bound by the CPU.
import { expect } from 'vitest';
import { findOperation } from '../../src/operations/index.js';

/**
 * The categories, as the audit names them: control, format, line and paragraph separators, private use, unassigned,
 * tag characters (U+E0000–E007F), variation selectors, the Hangul fillers, and every space but the ASCII one.
 */
export const CATEGORIES: Array<[string, (c: string) => boolean]> = [
  ['control (Cc)', (c) => /\p{Cc}/u.test(c)],
  ['format (Cf)', (c) => /\p{Cf}/u.test(c)],
  ['line separator (Zl)', (c) => /\p{Zl}/u.test(c)],
  ['paragraph separator (Zp)', (c) => /\p{Zp}/u.test(c)],
  ['private use (Co)', (c) => /\p{Co}/u.test(c)],
  ['unassigned (Cn)', (c) => /\p{Cn}/u.test(c)],
  [
    'tag',
    (c) => {
      const p = c.codePointAt(0)!;
      return p >= 0xe0000 && p <= 0xe007f;
    },
  ],
  ['variation selector', (c) => /\p{Variation_Selector}/u.test(c)],
  ['Hangul filler', (c) => [0x115f, 0x1160, 0x3164, 0xffa0].includes(c.codePointAt(0)!)],
  ['non-ASCII space (Zs)', (c) => c !== ' ' && /\p{Zs}/u.test(c)],
];

/** The same categories as one expression, to scan a whole rendering at once. */
export const ANY_CATEGORY =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Variation_Selector}\u{e0000}-\u{e007f}\u115f\u1160\u3164\uffa0]|(?! )\p{Zs}/gu;

/** Every code point of those categories but the surrogates, which no valid string holds alone (refused below). */
function hiddenCodePoints(): number[] {
  const found: number[] = [];
  for (let p = 0; p <= 0x10ffff; p++) {
    if (p >= 0xd800 && p <= 0xdfff) continue;
    const c = String.fromCodePoint(p);
    if (CATEGORIES.some(([, test]) => test(c))) found.push(p);
  }
  return found;
}

/** The code points spelled out in a rendering. */
function spelledIn(text: string): Set<number> {
  return new Set([...text.matchAll(/\\u\{([0-9a-f]{5,6})\}|\\u([0-9a-f]{4})/g)].map((m) => parseInt(m[1] ?? m[2], 16)));
}

/** Characters of a rendering that are in the categories: the front end let them through. */
function rawHidden(text: string, layout: RegExp): string[] {
  return [...text.replace(layout, '').matchAll(ANY_CATEGORY)].map(
    ([c]) => `U+${c.codePointAt(0)!.toString(16).toUpperCase()}`,
  );
}

export const hiddenPoints = hiddenCodePoints();
const BATCH = 2048;
const batches: number[][] = [];
for (let i = 0; i < hiddenPoints.length; i += BATCH) batches.push(hiddenPoints.slice(i, i + BATCH));

const GROUPS = 8;
const hex = (p: number) => `U+${p.toString(16).toUpperCase().padStart(4, '0')}`;
/**
 * The batches in eight groups, a test each: a test's work, and so its time on a loaded machine, is an eighth of the
 * walk over every code point, far within its timeout.
 */
export const batchGroups = Array.from({ length: GROUPS }, (_, g) => {
  const size = Math.ceil(batches.length / GROUPS);
  const group = batches.slice(g * size, (g + 1) * size);
  return { range: `${hex(group[0][0])}–${hex(group.at(-1)!.at(-1)!)}`, batches: group };
});

/** A settings change whose keys and values each carry one hidden code point, as a model could send it. */
export const settingsFor = (batch: number[]) =>
  Object.fromEntries(batch.map((p) => [`k${String.fromCodePoint(p)}`, `v${String.fromCodePoint(p)}`]));

export const op = findOperation('update_application_settings')!;

export function check(front: string, text: string, batch: number[], layout = /\n/g): void {
  expect(rawHidden(text, layout), `${front} shows hidden characters raw`).toEqual([]);
  const shown = spelledIn(text);
  const missing = batch.filter((p) => !shown.has(p));
  expect(
    missing.map((p) => `U+${p.toString(16)}`),
    `${front} does not spell these out`,
  ).toEqual([]);
}
