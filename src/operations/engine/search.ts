// Finding operations by the words people use ("retry a failed build", "who changed the labels"): name, chat words,
// area, title, description and parameter names, ranked; shared by the MCP meta tools and anything else that asks.
import type { Operation } from './define.js';

/** Words people use for the registry's own: a model or a person says "MR", "CI" or "remove", the registry does not. */
const SYNONYMS: Record<string, readonly string[]> = {
  mr: ['merge', 'request'],
  pr: ['merge', 'request'],
  pull: ['merge'],
  ci: ['pipeline'],
  build: ['pipeline'],
  job: ['pipeline'],
  remove: ['delete'],
  rerun: ['retry'],
  restart: ['retry'],
  stop: ['cancel'],
  repo: ['project', 'repository'],
  member: ['members'],
  team: ['group', 'members'],
  env: ['variable'],
  secret: ['variable'],
  tag: ['tag', 'release'],
  diff: ['compare', 'diff'],
  history: ['commits'],
  log: ['commits', 'audit'],
  file: ['file'],
  read: ['get'],
  show: ['get'],
  fetch: ['get'],
  add: ['create', 'add'],
  new: ['create'],
  edit: ['update'],
  change: ['update'],
};

/** Words too common in the registry's texts to tell operations apart. */
const STOP_WORDS = new Set([
  'a',
  'an',
  'the',
  'of',
  'to',
  'in',
  'on',
  'for',
  'and',
  'or',
  'by',
  'with',
  'is',
  'it',
  'its',
  'my',
  'me',
  'i',
  'at',
  'from',
  'this',
  'that',
  'all',
]);

/** Lower-case word stems: "pipelines" and "pipeline", "retried" and "retry" meet. */
function stem(word: string): string {
  let w = word.toLowerCase();
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && w.endsWith('ied')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith('es') && /(ch|sh|x|ss)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  return w;
}

function words(text: string): string[] {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w && !STOP_WORDS.has(w.toLowerCase()))
    .map(stem);
}

/** Where a word is found and what finding it there is worth. */
const WEIGHTS = { name: 4, chat: 4, area: 3, title: 2, description: 1, parameter: 1 } as const;

type Index = Map<string, number>;
const indexes = new WeakMap<Operation, Index>();

function indexOf(op: Operation): Index {
  const cached = indexes.get(op);
  if (cached) return cached;
  const index: Index = new Map();
  const add = (text: string, weight: number) => {
    for (const word of words(text)) index.set(word, Math.max(index.get(word) ?? 0, weight));
  };
  add(op.description, WEIGHTS.description);
  add(Object.keys(op.input.shape).join(' '), WEIGHTS.parameter);
  add(op.title, WEIGHTS.title);
  add(op.area, WEIGHTS.area);
  add(op.chat, WEIGHTS.chat);
  add(op.name, WEIGHTS.name);
  indexes.set(op, index);
  return index;
}

/** How well one query word matches an operation: exactly, or as the start of a longer word (4 letters or more). */
function wordScore(index: Index, word: string): number {
  const exact = index.get(word);
  if (exact !== undefined) return exact;
  if (word.length < 4) return 0;
  let best = 0;
  for (const [term, weight] of index) if (term.startsWith(word)) best = Math.max(best, weight * 0.75);
  return best;
}

/** Each query word with its synonyms: the best of them counts, so "remove a member" scores as "delete members". */
function queryTerms(query: string): string[][] {
  return words(query).map((word) => [word, ...(SYNONYMS[word] ?? []).map(stem)]);
}

interface OperationMatch {
  operation: Operation;
  score: number;
}

/**
 * The operations that best match the words of `query`, best first (at most `limit`). An operation must match
 * at least one word; the name breaks ties, so the answer is the same every time.
 */
export function findOperations(ops: readonly Operation[], query: string, limit: number): OperationMatch[] {
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  return ops
    .map((operation) => {
      const index = indexOf(operation);
      let score = 0;
      let matched = 0;
      for (const alternatives of terms) {
        const best = Math.max(...alternatives.map((word) => wordScore(index, word)));
        if (best > 0) matched += 1;
        score += best;
      }
      // Matching every word beats matching one word well.
      return { operation, score: matched === 0 ? 0 : score * (matched / terms.length) };
    })
    .filter((match) => match.score > 0)
    .sort((a, b) => b.score - a.score || a.operation.name.localeCompare(b.operation.name))
    .slice(0, limit);
}
