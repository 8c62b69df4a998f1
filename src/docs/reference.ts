// The docs/ sections written from the registry and the config schema, so the docs cannot drift from the code.
import type { Operation } from '../operations/engine/define.js';
import { ENVIRONMENT } from '../config.js';
import { DEMO_ACCOUNTS, DEMO_TOKENS, demoPassword } from '../sandbox/core/demo-accounts.js';

export const REFERENCE_BEGIN = '<!-- BEGIN GENERATED: reference (npm run docs) -->';
export const REFERENCE_END = '<!-- END GENERATED: reference -->';
export const CONFIG_BEGIN = '<!-- BEGIN GENERATED: configuration (npm run docs) -->';
export const CONFIG_END = '<!-- END GENERATED: configuration -->';
export const ACCOUNTS_BEGIN = '<!-- BEGIN GENERATED: sandbox accounts (npm run docs) -->';
export const ACCOUNTS_END = '<!-- END GENERATED: sandbox accounts -->';
export const DECISIONS_BEGIN = '<!-- BEGIN GENERATED: human decisions (npm run docs) -->';
export const DECISIONS_END = '<!-- END GENERATED: human decisions -->';
export const TOOL_INDEX_BEGIN = '<!-- BEGIN GENERATED: tool index (npm run docs) -->';
export const TOOL_INDEX_END = '<!-- END GENERATED: tool index -->';

/** The documents holding the generated sections, relative to the repository root. */
export const REFERENCE_FILE = 'docs/reference.md';
export const CONFIGURATION_FILE = 'docs/configuration.md';
export const README_FILE = 'README.md';

export interface GeneratedSection {
  /** The document it lives in, relative to the repository root. */
  file: string;
  begin: string;
  end: string;
  /** Its text as the code says it now. */
  body: string;
}

/** Every generated section where it lives, so `npm run docs` and the test that checks it agree on the places. */
export function generatedSections(operations: readonly Operation[]): GeneratedSection[] {
  return [
    { file: README_FILE, begin: TOOL_INDEX_BEGIN, end: TOOL_INDEX_END, body: renderToolIndex(operations) },
    { file: REFERENCE_FILE, begin: DECISIONS_BEGIN, end: DECISIONS_END, body: renderHumanDecisions(operations) },
    { file: REFERENCE_FILE, begin: REFERENCE_BEGIN, end: REFERENCE_END, body: renderReference(operations) },
    { file: CONFIGURATION_FILE, begin: CONFIG_BEGIN, end: CONFIG_END, body: renderConfiguration() },
    { file: CONFIGURATION_FILE, begin: ACCOUNTS_BEGIN, end: ACCOUNTS_END, body: renderSandboxAccounts() },
  ];
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n+/g, ' ');
}

/** Abbreviations whose period does not end a sentence. */
const ABBREVIATION = /\b(e\.g|i\.e|etc|vs|cf)\.$/i;

/** The first sentence: up to a period followed by a space or the end, outside quotes and parentheses, not after "e.g.". */
export function firstSentence(text: string): string {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === '.' && !quoted && depth === 0 && (i + 1 === text.length || /\s/.test(text[i + 1]))) {
      const sentence = text.slice(0, i + 1);
      if (!ABBREVIATION.test(sentence)) return sentence;
    }
  }
  return text;
}

/** Every tool by area, one line each, for the README: the names a person or a model asks for; the reference says more. */
export function renderToolIndex(operations: readonly Operation[]): string {
  const areas = [...new Set(operations.map((op) => op.area))];
  const lines = areas.map((area) => {
    const names = operations.filter((op) => op.area === area).map((op) => `\`${op.name}\``);
    return `- [${area}](${REFERENCE_FILE}#${area}): ${names.join(', ')}`;
  });
  return [
    `${operations.length} tools, each also a chat command (\`help <area>\` lists their words):`,
    '',
    ...lines,
  ].join('\n');
}

export function renderReference(operations: readonly Operation[]): string {
  const areas = [...new Set(operations.map((op) => op.area))];
  const composed = operations.filter((op) => op.composedOf).length;
  const summary =
    composed === 0
      ? 'Each is an MCP tool (name), a chat command (words) and one API route.'
      : `Each is an MCP tool (name), a chat command (words) and one API route; ${composed} ${composed === 1 ? 'is' : 'are'} composed of others, repeating their route.`;
  const out: string[] = [`${operations.length} operations. ${summary}`, ''];
  for (const area of areas) {
    out.push(`### ${area}`, '', '| tool | chat | route | effect | what it does |', '|---|---|---|---|---|');
    for (const op of operations.filter((o) => o.area === area)) {
      // A destructive call always asks; its needsApproval() only words the question for some inputs.
      const effect =
        op.effect +
        (op.effect === 'destructive' || op.alwaysAsks ? ' (approve)' : op.needsApproval ? ' (approve when risky)' : '');
      const route =
        `\`${op.method} ${cell(op.path)}\`${op.composedOf ? ` (repeats ${op.composedOf.map((name) => `\`${name}\``).join(', ')})` : ''}` +
        (op.outsideSpec ? ` (outside the spec: ${cell(op.outsideSpec)})` : '');
      out.push(`| \`${op.name}\` | \`${op.chat}\` | ${route} | ${effect} | ${cell(firstSentence(op.description))} |`);
    }
    out.push('');
  }
  return out.join('\n').trimEnd();
}

/**
 * Which calls ask a human, from each operation's recorded decision: a destructive call always, a write or a read with
 * a needsApproval() for the inputs it names (a read that reveals credentials); why is its `undo`. Operations with the same decision share a row.
 */
export function renderHumanDecisions(operations: readonly Operation[]): string {
  const rows = new Map<string, { names: string[]; when: string; why: string }>();
  for (const op of operations) {
    if (op.effect !== 'destructive' && !op.needsApproval) continue;
    const when = op.effect === 'destructive' ? 'always' : 'as *why* says';
    const why = op.undo ?? '';
    const key = `${when}\n${why}`;
    const row = rows.get(key) ?? { names: [], when, why };
    row.names.push(`\`${op.name}\``);
    rows.set(key, row);
  }
  const out = ["| asks a human | when | why (the registry's `undo`) |", '|---|---|---|'];
  for (const row of rows.values()) out.push(`| ${row.names.join(', ')} | ${row.when} | ${cell(row.why)} |`);
  return out.join('\n');
}

export function renderConfiguration(): string {
  const out = ['| variable | meaning |', '|---|---|'];
  for (const [name, schema] of Object.entries(ENVIRONMENT.shape)) {
    out.push(`| \`${name}\` | ${cell((schema as { description?: string }).description ?? '')} |`);
  }
  return out.join('\n');
}

export function renderSandboxAccounts(): string {
  const out = ['| role | user | token | password (sign-in page) | access in group acme |', '|---|---|---|---|---|'];
  const levels: Record<number, string> = {
    10: 'guest',
    20: 'reporter',
    30: 'developer',
    40: 'maintainer',
    50: 'owner',
  };
  for (const a of DEMO_ACCOUNTS) {
    const access = a.acmeAccess === null ? 'none (not a member)' : levels[a.acmeAccess];
    out.push(
      `| ${a.role}${a.role === 'admin' ? ' (instance administrator)' : ''} | \`${a.username}\` (${a.name}) | \`${DEMO_TOKENS[a.role]}\` | \`${demoPassword(a.username)}\` | ${access} |`,
    );
  }
  out.push(`| SCIM | (bearer token for /api/scim/v2) | \`${DEMO_TOKENS.scim}\` | | |`);
  return out.join('\n');
}

/** Replaces the text between two markers; throws if the markers are missing, so a broken document is noticed. */
export function replaceSection(document: string, begin: string, end: string, body: string): string {
  const from = document.indexOf(begin);
  const to = document.indexOf(end);
  if (from < 0 || to < from) throw new Error(`markers not found: ${begin}`);
  return `${document.slice(0, from + begin.length)}\n${body}\n${document.slice(to)}`;
}
