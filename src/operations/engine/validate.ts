// Input validation shared by every front end: zod issues become one error that names each bad field.
import type { z } from 'zod';
import type { InputRule, Operation } from './define.js';
import { coerceNumerals } from './numerals.js';
import { ambiguousHost } from '../../text/url-host.js';

export interface InputIssue {
  /** Dotted path of the field ('actions.0.file_path'), or '' for the input as a whole. */
  field: string;
  message: string;
}

export class InputError extends Error {
  constructor(
    readonly operation: string,
    readonly issues: InputIssue[],
  ) {
    super(
      `Invalid input for ${operation}: ${issues.map((i) => (i.field ? `${i.field}: ${i.message}` : i.message)).join('; ')}`,
    );
    this.name = 'InputError';
  }
}

function describeIssue(issue: z.core.$ZodIssue): InputIssue {
  const field = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return { field, message: `unknown parameter${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}` };
  }
  return { field, message: issue.message };
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * Strings that are not valid Unicode (a lone UTF-16 surrogate such as "\ud800") cannot be encoded into a URL or
 * stored by the service; found here they name their field instead of failing later as "URI malformed".
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** String.prototype.isWellFormed, which Node 20 has but the ES2023 library types do not. */
function wellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** What is wrong with one string of the input, whatever its field: not valid Unicode, or an address two parsers read differently. */
function stringIssue(text: string): string | undefined {
  if (!wellFormed(text)) return 'contains a lone UTF-16 surrogate (not valid Unicode); send the text as valid UTF-8';
  const hosts = ambiguousHost(text);
  // A human approves the host they are shown; an address that goes elsewhere for the service is refused, not shown.
  if (hosts) {
    return (
      `the address's host is ambiguous: a browser reads ${JSON.stringify(hosts.browser)}, the service reads ` +
      `${JSON.stringify(hosts.service)}; write it without backslashes, spaces or control characters`
    );
  }
  return undefined;
}

function malformedStrings(value: unknown, path: string[] = []): InputIssue[] {
  if (typeof value === 'string') {
    const message = stringIssue(value);
    return message ? [{ field: path.join('.'), message }] : [];
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => malformedStrings(v, [...path, String(i)]));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => [
      ...(wellFormed(k) ? [] : [{ field: [...path, k].join('.'), message: 'the parameter name is not valid Unicode' }]),
      ...malformedStrings(v, [...path, k]),
    ]);
  }
  return [];
}

/**
 * `__proto__` inside the input (an own name only JSON.parse makes) that the schema accepted: zod's records drop it
 * without a word (custom_attributes), so it is refused, naming where it stands. Where the schema knows its names
 * (the top level, a commit action) zod has already called it an unknown parameter.
 */
function reservedNames(value: unknown, path: string[] = []): InputIssue[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => reservedNames(v, [...path, String(i)]));
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => [
    ...(k === '__proto__'
      ? [
          {
            field: [...path, k].join('.'),
            message: 'the name __proto__ cannot be sent; nothing under it would reach the service',
          },
        ]
      : []),
    ...reservedNames(v, [...path, k]),
  ]);
}

/** Given, for a rule: present, and for a flag, true (`reset_password: false` asks for nothing). */
function given(input: Record<string, unknown>, key: string): boolean {
  const value = input[key];
  return value !== undefined && value !== null && value !== false;
}

/** The issue a cross-field rule finds in a parsed input, or none. */
function ruleIssue(rule: InputRule, input: Record<string, unknown>): InputIssue | undefined {
  const present = rule.keys.filter((key) => given(input, key));
  if (rule.kind === 'one_of' && present.length === 0) {
    return { field: rule.keys[0], message: `one of ${rule.keys.join(', ')} is needed` };
  }
  if (rule.kind === 'at_most_one' && present.length > 1) {
    return { field: present[1], message: `${present.join(' and ')} cannot be given together; choose one` };
  }
  if (rule.kind === 'requires' && given(input, rule.keys[0])) {
    const missing = rule.keys.slice(1).filter((key) => !given(input, key));
    if (missing.length > 0)
      return { field: missing[0], message: `${rule.keys[0]} needs ${missing.join(' and ')} as well` };
  }
  return undefined;
}

/**
 * Parses raw input with the operation's (strict) schema; unknown keys are an error, so a misspelt field is never
 * dropped. Whole-number strings where a number is wanted ("pipeline_id": "2") are read as numbers first: every
 * front end (MCP, chat, Slack) gets that here, and anything else of the wrong type still fails naming its field.
 */
export function validateInput<S extends z.ZodObject>(op: Operation<S>, raw: unknown): z.infer<S> {
  if (raw !== undefined && (raw === null || typeof raw !== 'object' || Array.isArray(raw))) {
    throw new InputError(op.name, [
      { field: '', message: `the arguments must be a JSON object of named parameters, got ${kindOf(raw)}` },
    ]);
  }
  const malformed = malformedStrings(raw);
  if (malformed.length > 0) throw new InputError(op.name, malformed);
  const result = op.input.safeParse(coerceNumerals(op.input, raw ?? {}));
  if (!result.success) throw new InputError(op.name, result.error.issues.map(describeIssue));
  const reserved = reservedNames(raw);
  if (reserved.length > 0) throw new InputError(op.name, reserved);
  const ruleIssues = (op.rules ?? []).flatMap((rule) => ruleIssue(rule, result.data as Record<string, unknown>) ?? []);
  if (ruleIssues.length > 0) throw new InputError(op.name, ruleIssues);
  return result.data as z.infer<S>;
}
