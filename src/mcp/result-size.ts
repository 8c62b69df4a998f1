// The size of a tool result, and how any result is brought within FORGEOPS_MAX_RESULT_CHARS whatever its shape:
// text blocks, structured content of any depth (arrays of objects, nested arrays, long strings inside objects),
// attachments. A result is measured as it travels (content and structuredContent serialized together), and
// what is cut says so.

type Block = { type: string; text?: string; [key: string]: unknown };
interface SizedResult {
  [key: string]: unknown;
  content: Block[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Characters of a result as it travels: its content and structured content serialized together. */
export function resultSize(result: SizedResult): number {
  return JSON.stringify({
    content: result.content,
    structuredContent: result.structuredContent,
    isError: result.isError,
  }).length;
}

/** The shortest a string is cut to, and the least room an item of a list or a field of an object is given. */
const MIN_STRING_CHARS = 60;
const MIN_ITEM_CHARS = 80;
const MIN_FIELD_CHARS = 40;
/** Depth below which values are replaced by a placeholder: nothing a person reads is nested deeper. */
const MAX_DEPTH = 24;
const TOO_DEEP = '[nested too deep to show]';
/** Rounds of fitting at most: each one scales the budget by how far the last one missed. */
const MAX_ROUNDS = 12;

/**
 * A string cut to `max` characters: its beginning and its end, with the count of what was cut between them (the
 * end of a log or a fenced text is as telling as its start, and a fence's closing line is at the end).
 */
export function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = `…[${text.length - max} characters cut to fit the result size limit]…`;
  const room = Math.max(0, max - marker.length);
  let head = Math.ceil(room / 2);
  let tail = text.length - (room - head);
  // Never split a surrogate pair: half a character is not one.
  if (head > 0 && /[\ud800-\udbff]/.test(text[head - 1])) head--;
  if (tail < text.length && /[\udc00-\udfff]/.test(text[tail])) tail++;
  return `${text.slice(0, head)}${marker}${text.slice(tail)}`;
}

/** Strings this long have their JSON size remembered: a service's long description is measured in every round. */
const REMEMBERED_STRING_CHARS = 256;

/**
 * The JSON sizes of a value's parts, kept for all the rounds of one fitting: the value does not change between
 * rounds, only the budget, so a large answer (thousands of records, long texts) is walked once, not once a round.
 */
class Sizes {
  private readonly objects = new WeakMap<object, number>();
  private readonly strings = new Map<string, number>();

  of(value: unknown, depth: number): number {
    if (typeof value === 'string') return this.ofString(value);
    if (value === null || typeof value !== 'object')
      return value === undefined ? 0 : String(JSON.stringify(value)).length;
    if (depth >= MAX_DEPTH) return TOO_DEEP.length + 2;
    const known = this.objects.get(value);
    if (known !== undefined) return known;
    let total = 2;
    let count = 0;
    if (Array.isArray(value)) {
      for (const item of value) total += (item === undefined ? 4 : this.of(item, depth + 1)) + (count++ > 0 ? 1 : 0);
    } else {
      for (const [key, item] of Object.entries(value)) {
        if (item === undefined) continue;
        total += this.ofString(key) + 1 + this.of(item, depth + 1) + (count++ > 0 ? 1 : 0);
      }
    }
    this.objects.set(value, total);
    return total;
  }

  private ofString(text: string): number {
    if (text.length < REMEMBERED_STRING_CHARS) return JSON.stringify(text).length;
    let size = this.strings.get(text);
    if (size === undefined) {
      size = JSON.stringify(text).length;
      this.strings.set(text, size);
    }
    return size;
  }
}

/** What one round of fitting cut, for the note. */
class Fitting {
  strings = 0;
  arrays = 0;
  objects = 0;
  deep = 0;
  /** The most items a shortened list kept, and the fewest. */
  itemsKept = Infinity;

  constructor(
    readonly keep: ReadonlySet<unknown>,
    private readonly sizes: Sizes,
  ) {}

  get cut(): boolean {
    return this.strings + this.arrays + this.objects + this.deep > 0;
  }

  /** Characters of the value as JSON (to MAX_DEPTH; deeper values count as the placeholder). */
  size(value: unknown, depth = 0): number {
    return this.sizes.of(value, depth);
  }

  /** The value in at most `budget` characters of JSON, as near as cutting allows. */
  fit(value: unknown, budget: number, depth = 0, own: ReadonlySet<string> = new Set()): unknown {
    const size = this.size(value, depth);
    if (size <= budget) return value;
    if (typeof value === 'string') {
      this.strings++;
      // Escapes count too: keep the share of characters that fits.
      return cutMiddle(
        value,
        Math.max(MIN_STRING_CHARS, Math.floor(((budget - 2) * value.length) / Math.max(1, size - 2))),
      );
    }
    if (value === null || typeof value !== 'object') return value;
    if (depth >= MAX_DEPTH) {
      this.deep++;
      return TOO_DEEP;
    }
    if (Array.isArray(value)) return this.fitArray(value, budget, depth);
    return this.fitObject(value as Record<string, unknown>, budget, depth, own);
  }

  /** A list's first items, as many as can have some room each, sharing the budget fairly (see shares). */
  private fitArray(items: unknown[], budget: number, depth: number): unknown[] {
    const sizes = items.map((item) => this.size(item, depth + 1) + 1);
    let count = items.length;
    if (!this.keep.has(items)) {
      let used = 2;
      count = 0;
      while (count < items.length && used + Math.min(sizes[count], MIN_ITEM_CHARS) <= budget)
        used += Math.min(sizes[count++], MIN_ITEM_CHARS);
      count = Math.max(1, count);
      if (count < items.length) {
        this.arrays++;
        this.itemsKept = Math.min(this.itemsKept, count);
      }
    }
    const room = shares(sizes.slice(0, count), budget - 2);
    return items.slice(0, count).map((item, i) => this.fit(item, room[i] - 1, depth + 1));
  }

  /** An object's fields: `own` ones whole, then the first others that can have some room, sharing the rest fairly. */
  private fitObject(
    value: Record<string, unknown>,
    budget: number,
    depth: number,
    own: ReadonlySet<string>,
  ): Record<string, unknown> {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    const keyCost = (key: string) => JSON.stringify(key).length + 2;
    let left = budget - 2;
    for (const [key, item] of entries) if (own.has(key)) left -= keyCost(key) + this.size(item, depth + 1);
    const others = entries.filter(([key]) => !own.has(key));
    let used = 0;
    let count = 0;
    while (
      count < others.length &&
      used + Math.min(keyCost(others[count][0]) + this.size(others[count][1], depth + 1), MIN_FIELD_CHARS) <= left
    ) {
      used += Math.min(keyCost(others[count][0]) + this.size(others[count][1], depth + 1), MIN_FIELD_CHARS);
      count++;
    }
    if (count < others.length) this.objects++;
    const kept = others.slice(0, count);
    const room = shares(
      kept.map(([key, item]) => this.size(item, depth + 1) + keyCost(key)),
      left,
    );
    const fitted = new Map(kept.map(([key, item], i) => [key, this.fit(item, room[i] - keyCost(key), depth + 1)]));
    // Built from entries, never assigned: a service's own "__proto__" field stays a field, not the object's prototype.
    return Object.fromEntries(
      entries.flatMap(
        ([key, item]): Array<[string, unknown]> =>
          own.has(key) ? [[key, item]] : fitted.has(key) ? [[key, fitted.get(key)]] : [],
      ),
    );
  }

  /** What was cut, in words, for the `truncated` note. */
  note(maxChars: number): string {
    const what: string[] = [];
    if (this.strings > 0) what.push('long texts are cut in the middle');
    if (this.arrays > 0) what.push(`long lists show their first items (${this.itemsKept} or more)`);
    if (this.objects > 0) what.push('wide objects show their first fields');
    if (this.deep > 0) what.push(`values nested deeper than ${MAX_DEPTH} levels are left out`);
    return `cut to fit the result size limit of ${maxChars} characters: ${what.join('; ')}. Ask for less (a page, fewer lines, a path) to see more`;
  }
}

/**
 * Budget shared among parts of these sizes the fair way (water-filling): parts smaller than an equal share keep
 * all they need, and what they leave is shared equally among the larger ones. A long log beside a long list keeps
 * as much as the list, whatever their sizes.
 */
function shares(sizes: readonly number[], budget: number): number[] {
  const order = sizes.map((_, i) => i).sort((a, b) => sizes[a] - sizes[b]);
  const out = new Array<number>(sizes.length);
  let left = Math.max(0, budget);
  for (let n = 0; n < order.length; n++) {
    const fair = Math.floor(left / (order.length - n));
    const given = Math.min(sizes[order[n]], fair);
    out[order[n]] = given;
    left -= given;
  }
  return out;
}

/** The object with the note in its `truncated` field (added to the one a list already has). */
function withNote(value: Record<string, unknown>, note: string): Record<string, unknown> {
  if (!('truncated' in value)) return { ...value, truncated: note };
  if (typeof value.truncated === 'string') return { ...value, truncated: `${value.truncated}; ${note}` };
  return { ...value, result_truncated: note };
}

interface FitOptions {
  /** What the whole result may measure. */
  maxChars: number;
  /** Its size as it would travel, for a candidate value. */
  measure: (value: Record<string, unknown>) => number;
  /** measure(value) of the value itself, when the caller has it already (a large answer is not serialized again). */
  measured?: number;
  /** Arrays whose length is kept (a list's items, counted by the list already); their items are still cut. */
  keep?: ReadonlySet<unknown>;
  /** Top-level fields kept whole while there is room for them: forgeops' own notes beside the data. */
  ownKeys?: readonly string[];
}

/**
 * The object cut until `measure` of it is at most `maxChars`: every string, list and object gets a fair share of
 * the room (see shares), long strings are cut in the middle, lists keep their first items and objects their first
 * fields; then a `truncated` note says what was cut. Undefined when not even the smallest cut fits.
 */
export function fitObject(
  value: Record<string, unknown>,
  options: FitOptions,
): { value: Record<string, unknown>; cut: boolean } | undefined {
  const whole = options.measured ?? options.measure(value);
  if (whole <= options.maxChars) return { value, cut: false };
  const keep = options.keep ?? new Set<unknown>();
  const own = new Set(options.ownKeys ?? []);
  const sizes = new Sizes();
  const json = sizes.of(value, 0);
  // The measure may count the value more than once (text and structured content): start from its own ratio.
  let budget = Math.floor(json * (options.maxChars / whole));
  for (let round = 0; round < MAX_ROUNDS && budget > 0; round++) {
    const fitting = new Fitting(keep, sizes);
    // The note takes room of its own.
    const note = fitting.note(options.maxChars);
    const fitted = fitting.fit(value, budget - note.length - 20, 0, own) as Record<string, unknown>;
    const noted = withNote(fitted, fitting.note(options.maxChars));
    const size = options.measure(noted);
    if (size <= options.maxChars) return { value: noted, cut: true };
    budget = Math.floor(budget * (options.maxChars / size) * 0.95);
    // Without room for forgeops' own notes, they are cut like the rest.
    if (round === MAX_ROUNDS / 2) own.clear();
  }
  return undefined;
}

/** A result that says only that it was too large, for when nothing of it fits. */
function tooLarge(result: SizedResult, maxChars: number): SizedResult {
  const note = `The result was too large to show within the result size limit of ${maxChars} characters. Ask for less (a page, fewer lines, a path).`;
  return {
    content: [{ type: 'text', text: note }],
    structuredContent: { truncated: note },
    ...(result.isError ? { isError: true } : {}),
  };
}

/**
 * Any result within `maxChars` as it travels: attachments that do not fit are left out (with a sentence), then
 * text blocks and structured content are cut, each keeping a share in proportion to its size. A result already
 * within the cap is returned as it is.
 */
export function boundResult(result: SizedResult, maxChars: number): SizedResult {
  if (resultSize(result) <= maxChars) return result;
  const texts = result.content.filter((block) => block.type === 'text');
  const notice =
    texts.length < result.content.length
      ? [{ type: 'text', text: '[an attachment was left out: it does not fit the result size limit]' }]
      : [];
  let bounded: SizedResult = { ...result, content: [...texts, ...notice] };
  const size = resultSize(bounded);
  if (size <= maxChars) return bounded;
  const structured = result.structuredContent;
  for (let scale = 0.9; scale > 0.01; scale *= 0.7) {
    const ratio = (maxChars / size) * scale;
    const cut = texts.map((block) => {
      const text = String(block.text ?? '');
      return { ...block, text: cutMiddle(text, Math.max(MIN_STRING_CHARS, Math.floor(text.length * ratio))) };
    });
    let fitted: Record<string, unknown> | undefined;
    if (structured) {
      const share = Math.max(MIN_STRING_CHARS * 4, Math.floor(JSON.stringify(structured).length * ratio));
      fitted = fitObject(structured, { maxChars: share, measure: (value) => JSON.stringify(value).length })?.value;
      if (!fitted) continue;
    }
    bounded = { ...result, content: [...cut, ...notice], ...(fitted ? { structuredContent: fitted } : {}) };
    if (resultSize(bounded) <= maxChars) return bounded;
  }
  return tooLarge(result, maxChars);
}
