// Any operation's outcome as a ChatMessage: the operation's own presenter when it has one, a generic reading of the
// service's data otherwise (lists, objects, raw content), plus the links, statuses and paging every front end shows.
import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { callFrom } from '../operations/engine/paging.js';
import type { FollowUp, Operation, OperationResult, PageInfo } from '../operations/engine/define.js';
import type { CallPreview } from '../run/dry-run.js';
import { outcomeSentence, type WriteOutcome } from '../operations/engine/outcome.js';
import { asList, asRecord, countOf, shortSha, show, type Fields } from '../operations/engine/present.js';
import { ITEM_DETAIL_KEYS, LINK_KEYS, NAME_KEYS } from '../operations/engine/rows.js';
import type { ShownText } from '../text/visible.js';
import { boundMessage, MESSAGE_CHARS } from './bounds.js';
import { chatMessage, type ChatMessage, type ChatSection, type ChatStatus } from './message.js';

export interface PresentOptions {
  /** Longest code section (file content, a diff), in characters; longer ones are cut with a note. */
  maxCodeChars?: number;
  /** Most list items shown one a line; the rest are counted in a note. */
  maxItems?: number;
  /** A write's outcome in words (see operations/engine/outcome.ts): the message's title, and its link when it has one. */
  outcome?: WriteOutcome;
}

type Limits = Required<Pick<PresentOptions, 'maxCodeChars' | 'maxItems'>>;

/** Fits one Slack section (3,000 characters) with room for the fence, and a screenful in a terminal. */
const DEFAULT_MAX_CODE_CHARS = 2_900;
export const DEFAULT_MAX_ITEMS = 50;
/** Scalar fields shown for an object without a presenter; the rest are counted in a note. */
const MAX_OBJECT_FIELDS = 8;
/** Strings longer than this (or with line breaks) read better as a section than as a field. */
const LONG_TEXT_CHARS = 100;
/** Long text fields shown as sections, at most. */
const MAX_TEXT_SECTIONS = 2;

/** Fields shown first for an object; then any other scalar field. */
const OBJECT_FIRST_KEYS = [
  'id',
  'iid',
  'status',
  'state',
  'ref',
  'short_id',
  'sha',
  'tag_name',
  'username',
  'author_name',
  'created_at',
];
/** Never worth a line in chat: pictures and links that the message's own link already covers. */
const HIDDEN_KEYS = LINK_KEYS;

/** Service statuses (pipelines, jobs) onto the message statuses; waiting ones read as pending. */
const STATUS_OF: Record<string, ChatStatus> = {
  success: 'success',
  failed: 'failed',
  running: 'running',
  pending: 'pending',
  canceled: 'canceled',
  skipped: 'skipped',
  created: 'pending',
  waiting_for_resource: 'pending',
  preparing: 'pending',
  scheduled: 'pending',
  manual: 'pending',
};

/** The message status a service record's own status reads as (a pipeline's "failed" → failed), if any. */
function statusOf(record: Fields): ChatStatus | undefined {
  return typeof record.status === 'string' ? STATUS_OF[record.status] : undefined;
}

function linkOf(record: Fields): string | undefined {
  if (typeof record.web_url === 'string') return record.web_url;
  const self = asRecord(record._links).self;
  return typeof self === 'string' ? self : undefined;
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function nameOf(item: Fields): { key: string; value: string } | undefined {
  const key = NAME_KEYS.find((k) => isScalar(item[k]) && item[k] !== '');
  return key ? { key, value: show(item[key]) } : undefined;
}

/** An item's label: #iid, #id, a short SHA, or its position when it has no id. */
function itemLabel(item: Fields, position: number): string {
  if (isScalar(item.iid)) return `#${show(item.iid)}`;
  if (typeof item.id === 'number') return `#${item.id}`;
  if (typeof item.short_id === 'string') return item.short_id;
  if (typeof item.id === 'string') return shortSha(item.id);
  return `${position + 1}.`;
}

/** One list item on one line: its name, then the few details that tell items apart. */
function itemLine(item: Fields, position: number): [string, string] {
  const name = nameOf(item);
  const details = ITEM_DETAIL_KEYS.filter((k) => k !== name?.key && isScalar(item[k]) && item[k] !== '').map((k) =>
    show(item[k]),
  );
  const parts = [name?.value, ...details].filter((p): p is string => p !== undefined);
  return [itemLabel(item, position), parts.length > 0 ? parts.join(' · ') : show(item)];
}

/** Text cut to `max` characters with a note saying how much was left out. */
function capped(text: string, max: number, what: string): { text: string; note?: string } {
  if (text.length <= max) return { text };
  return { text: text.slice(0, max), note: `${what} cut: showing ${max} of ${text.length} characters.` };
}

function codeSection(title: string | undefined, body: string, max: number, notes: string[]): ChatSection {
  const cut = capped(body, max, title ?? 'content');
  if (cut.note) notes.push(cut.note);
  return { ...(title !== undefined ? { title } : {}), text: cut.text, code: true };
}

/** Diffs in a list or an object (a commit's diff, a comparison): one code section each, until the budget is spent. */
function diffSections(items: Fields[], max: number, notes: string[]): ChatSection[] {
  const withDiff = items.filter((d) => typeof d.diff === 'string');
  const sections: ChatSection[] = [];
  let budget = max;
  for (const d of withDiff) {
    if (budget <= 0) break;
    const title =
      d.old_path !== undefined && d.old_path !== d.new_path
        ? `${show(d.old_path)} → ${show(d.new_path)}`
        : show(d.new_path ?? d.old_path);
    const section = codeSection(title, d.diff as string, budget, notes);
    budget -= section.text.length;
    sections.push(section);
  }
  if (sections.length < withDiff.length)
    notes.push(`${withDiff.length - sections.length} more changed files not shown.`);
  return sections;
}

/**
 * Paging facts as a note, and Next page as an exact call when the list has page numbers. A page shown only in part
 * (a chat reply holds `maxItems` lines) reads on from the first line not shown, not from the page after it: what was
 * cut must stay reachable. Of the `read` items, `shown` are in the reply: named, as two counts side by side are
 * easily swapped.
 */
function paging(
  op: Operation,
  input: Record<string, unknown>,
  { shown, read }: { shown: number; read: number },
  page: PageInfo | undefined,
): { notes: string[]; actions: FollowUp[] } {
  const cut = shown < read;
  if (!page?.has_more && !cut) return { notes: [], actions: [] };
  const of = page?.total !== undefined ? ` of ${page.total}` : '';
  const numbered = page?.next_page !== undefined || (page?.page !== undefined && page.per_page !== undefined);
  if (numbered && page) {
    const next =
      cut && page.page !== undefined && page.per_page !== undefined
        ? callFrom((page.page - 1) * page.per_page + shown, shown)
        : { page: page.next_page!, per_page: page.per_page };
    const call =
      next.per_page !== undefined && next.per_page !== page.per_page
        ? `page=${next.page} per_page=${next.per_page}`
        : `page=${next.page}`;
    return {
      notes: [`showing ${shown}${of}; next page: ${call}`],
      actions: [
        {
          label: 'Next page',
          operation: op.name,
          input: { ...input, page: next.page, ...(next.per_page !== undefined ? { per_page: next.per_page } : {}) },
        },
      ],
    };
  }
  // Keyset pages have no number to ask for; reading on is all_pages' job.
  return { notes: [`showing ${shown}${of}; more results exist: all_pages=true reads on`], actions: [] };
}

function nounOf(op: Operation): string | undefined {
  const words = op.chat.split(' ');
  return words.length === 2 && words[1] === 'list' ? words[0] : undefined;
}

/** What a repository tree's entry types read as: a blob is a file, a commit a submodule. */
const ENTRY_KINDS: Record<string, string> = { tree: 'folder', blob: 'file', commit: 'submodule' };

/** A list of repository entries counted by kind ("8 entries: 3 folders, 5 files"), not all called by one noun. */
function kindsTitle(items: Fields[]): string | undefined {
  if (
    items.length === 0 ||
    !items.every((i) => typeof i.type === 'string' && i.type in ENTRY_KINDS && typeof i.path === 'string')
  )
    return undefined;
  const counts = new Map<string, number>();
  for (const item of items)
    counts.set(ENTRY_KINDS[item.type as string], (counts.get(ENTRY_KINDS[item.type as string]) ?? 0) + 1);
  const parts = [...counts].map(([kind, n]) => `${n} ${kind}${n === 1 ? '' : 's'}`);
  return `${countOf(items, 'entry').replace(/entrys$/, 'entries')}: ${parts.join(', ')}`;
}

function presentList(op: Operation, items: Fields[], max: Limits): ChatMessage {
  const notes: string[] = [];
  const noun = nounOf(op);
  const title = kindsTitle(items) ?? (noun ? countOf(items, noun) : `${op.title}: ${countOf(items, 'result')}`);
  const shown = items.slice(0, max.maxItems);
  if (shown.length < items.length) notes.push(`${items.length - shown.length} more not shown.`);
  return chatMessage(title, {
    fields: shown.map(itemLine),
    sections: diffSections(items, max.maxCodeChars, notes),
    notes,
  });
}

/** A base64 file (get_file) as the text it holds, or undefined when it is not text. */
function decodedContent(record: Fields): string | undefined {
  if (typeof record.content !== 'string') return undefined;
  if (record.encoding !== 'base64') return record.content;
  const bytes = Buffer.from(record.content, 'base64');
  return isUtf8(bytes) && !bytes.includes(0) ? bytes.toString('utf8') : undefined;
}

function presentObject(op: Operation, record: Fields, max: Limits): ChatMessage {
  const notes: string[] = [];
  const name = nameOf(record);
  const shownKeys = new Set([name?.key, 'content', 'diff']);
  const sections: ChatSection[] = [];
  const content = decodedContent(record);
  // Decoded text is shown as text: its transfer encoding (base64) would only mislead.
  if (content !== undefined) {
    sections.push(codeSection(name?.value, content, max.maxCodeChars, notes));
    shownKeys.add('encoding');
  } else if (typeof record.content === 'string')
    notes.push(`The content is binary (${show(record.size)} bytes); get it raw to download it.`);
  // Empty values say nothing, and a short_id repeats the id shown short.
  if (typeof record.id === 'string') shownKeys.add('short_id');
  const scalarKeys = Object.keys(record).filter(
    (k) => !shownKeys.has(k) && !HIDDEN_KEYS.has(k) && isScalar(record[k]) && record[k] !== '',
  );
  const long = scalarKeys.filter(
    (k) =>
      typeof record[k] === 'string' &&
      ((record[k] as string).length > LONG_TEXT_CHARS || (record[k] as string).includes('\n')),
  );
  // A commit's message usually repeats its title: no section for what the title already says.
  const telling = long.filter((k) => (record[k] as string).trim() !== name?.value);
  for (const key of telling.slice(0, MAX_TEXT_SECTIONS))
    sections.push({ title: key, text: capped((record[key] as string).trim(), max.maxCodeChars, key).text });
  const short = scalarKeys.filter((k) => !long.includes(k));
  const ordered = [
    ...OBJECT_FIRST_KEYS.filter((k) => short.includes(k)),
    ...short.filter((k) => !OBJECT_FIRST_KEYS.includes(k)),
  ];
  const fields = ordered
    .slice(0, MAX_OBJECT_FIELDS)
    .map((k): [string, string] => [k, k === 'sha' || k === 'id' ? shortSha(record[k]) : show(record[k])]);
  // Lists inside an object (a comparison's commits and diffs): counted, and diffs shown; a nested record (an audit
  // event's details, a commit's stats) by its name or its "key: value" pairs, while fields are left.
  for (const [key, value] of Object.entries(record)) {
    if (HIDDEN_KEYS.has(key) || value === null || typeof value !== 'object') continue;
    if (!Array.isArray(value)) {
      const summary = show(value);
      if (fields.length < MAX_OBJECT_FIELDS && summary !== '—') fields.push([key, summary]);
      continue;
    }
    const items = asList(value);
    const diffs = diffSections(items, max.maxCodeChars, notes);
    if (diffs.length > 0) sections.push(...diffs);
    else if (items.length > 0 && items.some((i) => nameOf(i))) {
      sections.push({
        title: `${key} (${items.length})`,
        text: items
          .slice(0, max.maxItems)
          .map((item, i) => itemLine(item, i).join('  '))
          .join('\n'),
      });
    } else if (fields.length < MAX_OBJECT_FIELDS) {
      fields.push([key, show(value)]);
    }
  }
  const hidden = ordered.slice(MAX_OBJECT_FIELDS);
  if (hidden.length > 0) {
    notes.push(
      `${hidden.length} more ${hidden.length === 1 ? 'field' : 'fields'} not shown (${hidden.join(', ')}); ` +
        'forgeops chat --json, or the MCP tool, gives every field.',
    );
  }
  return chatMessage(name?.value ?? op.title, { fields, sections, notes });
}

/** Raw file content, a blob or an archive: text as a capped code section, anything else described by size and digest. */
function presentRaw(op: Operation, input: Record<string, unknown>, result: OperationResult, max: Limits): ChatMessage {
  const bytes = Buffer.isBuffer(result.data)
    ? result.data
    : Buffer.from(typeof result.data === 'string' ? result.data : '', 'utf8');
  const label = result.fileName ?? (typeof input.file_path === 'string' ? input.file_path : op.title);
  const fields: Array<[string, string]> = [['size', `${bytes.length} bytes`]];
  if (result.contentType) fields.push(['content type', result.contentType]);
  if (isUtf8(bytes) && !bytes.includes(0)) {
    const notes: string[] = [];
    return chatMessage(label, {
      fields,
      sections: [codeSection(undefined, bytes.toString('utf8'), max.maxCodeChars, notes)],
      notes,
    });
  }
  fields.push(['sha256', createHash('sha256').update(bytes).digest('hex')]);
  return chatMessage(label, {
    fields,
    notes: ['Binary content is not shown in chat; --json or the service gives the bytes.'],
  });
}

/** What a write with nothing to show (a 204) or a read of nothing reads as. */
function presentEmpty(op: Operation): ChatMessage {
  return op.effect === 'read'
    ? chatMessage(`${op.title}: nothing returned`)
    : chatMessage(`${op.title}: done`, { status: 'success' });
}

function generic(op: Operation, input: Record<string, unknown>, result: OperationResult, max: Limits): ChatMessage {
  if (op.response === 'text' || op.response === 'bytes') return presentRaw(op, input, result, max);
  if (Array.isArray(result.data)) return presentList(op, asList(result.data), max);
  if (result.data !== null && typeof result.data === 'object') return presentObject(op, asRecord(result.data), max);
  if (result.data === null || result.data === undefined || result.data === '') return presentEmpty(op);
  return chatMessage(op.title, { sections: [codeSection(undefined, show(result.data), max.maxCodeChars, [])] });
}

/**
 * The operation's own presenter, or undefined when it has none or it failed on a surprising answer. Its fields are
 * held to the same item budget as the generic lists, with the same note, so a long list reads alike everywhere.
 */
function ownPresentation(
  op: Operation,
  input: Record<string, unknown>,
  data: unknown,
  maxItems: number,
): ChatMessage | undefined {
  if (!op.present) return undefined;
  try {
    const shown = op.present(data, input as never);
    const fields = shown.fields ?? [];
    const notes = fields.length > maxItems ? [`${fields.length - maxItems} more not shown.`] : [];
    return chatMessage(shown.title, {
      fields: fields.slice(0, maxItems),
      sections: shown.sections ?? [],
      actions: shown.actions ?? [],
      notes,
    });
  } catch {
    return undefined;
  }
}

/**
 * A write's message titled by what it did to what ("Removed @erin from acme/web"); the presentation's own title,
 * when it says more than "done", stays as the first line under it.
 */
function withOutcome(message: ChatMessage, outcome: WriteOutcome): ChatMessage {
  const own = message.title;
  const keep = own !== outcome.text && !own.endsWith(': done') && !outcome.text.includes(own);
  return {
    ...message,
    title: outcome.text,
    ...(outcome.link !== undefined ? { link: outcome.link } : {}),
    fields: keep ? [['result', own], ...message.fields] : message.fields,
  };
}

/** Each shown row's own next steps (Retry beside a failed pipeline), tied to its row by the row's label. */
function rowActions(
  op: Operation,
  input: Record<string, unknown>,
  data: unknown,
  rows: Array<[string, string]>,
): FollowUp[] {
  if (!op.rowActions || !Array.isArray(data)) return [];
  return asList(data)
    .slice(0, rows.length)
    .flatMap((item, i) => op.rowActions!(item, input as never).map((action) => ({ ...action, row: rows[i][0] })));
}

/** A successful call as a chat message: presenter or generic reading, then status, link, paging and Next page. */
export function presentOutcome(
  op: Operation,
  input: Record<string, unknown>,
  result: OperationResult,
  options: PresentOptions = {},
): ChatMessage {
  const max = {
    maxCodeChars: options.maxCodeChars ?? DEFAULT_MAX_CODE_CHARS,
    maxItems: options.maxItems ?? DEFAULT_MAX_ITEMS,
  };
  const shown = ownPresentation(op, input, result.data, max.maxItems) ?? generic(op, input, result, max);
  // Every write says what it did to what; the caller's outcome knows names (people, projects by path) it looked up.
  const outcome = options.outcome ?? outcomeSentence(op, input, result.data);
  const message = outcome ? withOutcome(shown, outcome) : shown;
  const record = Array.isArray(result.data) ? {} : asRecord(result.data);
  const status = message.status ?? statusOf(record) ?? (op.effect !== 'read' ? 'success' : undefined);
  const link = message.link ?? linkOf(record);
  const items = Array.isArray(result.data) ? result.data.length : 0;
  const more = paging(op, input, { shown: Math.min(items, max.maxItems), read: items }, result.page);
  // Whatever the service answered, a reply a person can read: each part and the whole within bounds.
  return boundMessage(
    {
      ...message,
      ...(status !== undefined ? { status } : {}),
      ...(link !== undefined ? { link } : {}),
      actions: [...message.actions, ...rowActions(op, input, result.data, message.fields), ...more.actions],
      notes: [...message.notes, ...more.notes],
    },
    { sectionChars: max.maxCodeChars, messageChars: MESSAGE_CHARS },
  );
}

/**
 * A failure as a chat message. With a title ("Get pipeline failed"), the whole explanation is a section; without,
 * the first line is the title and the rest (a usage line) follows.
 */
export function presentFailure(message: string, title?: string): ChatMessage {
  if (title !== undefined) return chatMessage(title, { status: 'error', sections: [{ text: message }] });
  const [first, ...rest] = message.split('\n');
  const more = rest.join('\n').trim();
  return chatMessage(first, { status: 'error', sections: more ? [{ text: more }] : [] });
}

/** The question a human must answer before a call runs: the policy's exact prompt, shown whole. */
export function presentApproval(prompt: ShownText, op?: Operation): ChatMessage {
  return chatMessage(op ? `Approve: ${op.title}?` : 'Approve this call?', {
    status: 'warning',
    sections: [{ text: prompt, code: true }],
    notes: ['Nothing runs until you approve; declining changes nothing.'],
  });
}

/** A dry run: the request as it would leave, what it would change, and whether a real run would ask first. */
export function presentDryRun(preview: CallPreview, op: Operation): ChatMessage {
  const { method, path, query, body } = preview.request;
  const request = [
    `${method} ${path}`,
    ...(query ? [`query: ${JSON.stringify(query)}`] : []),
    ...(body !== undefined ? [JSON.stringify(body, null, 2)] : []),
  ].join('\n');
  return chatMessage(`Dry run: ${op.title} (nothing was sent)`, {
    status: 'info',
    fields: [
      ...(preview.changes ? [['would change', preview.changes] as [string, string]] : []),
      [
        'approval',
        preview.needs_confirmation
          ? `a real run asks first${preview.confirm_reason ? `: ${preview.confirm_reason}` : ''}`
          : 'not needed',
      ],
    ],
    sections: [
      ...(preview.steps
        ? [{ title: 'Steps', text: preview.steps.map((step, i) => `${i + 1}. ${step}`).join('\n') }]
        : []),
      {
        title: `${preview.request.body_encoding ? `Request (${preview.request.body_encoding} body)` : 'Request'}`,
        text: request,
        code: true,
      },
    ],
    notes: ['Type the same command without --dry-run to run it.'],
  });
}
