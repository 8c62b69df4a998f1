// Registry → MCP tool descriptors: name, title, description, JSON Schema from zod, annotations from effect.
import { z } from 'zod';
import { MAX_URL_VALUE_CHARS, type Operation } from '../operations/define.js';

/** MCP tool hints; each is sent only when it differs from the protocol's default (see toolAnnotations). */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
}

export interface ToolDescriptor {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  annotations: ToolAnnotations;
}

/** The protocol's defaults: a tool is assumed to write, destructively, not idempotently, in an open world. */
export const ANNOTATION_DEFAULTS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true } as const;

/**
 * The hints of an operation, without those equal to the protocol's defaults: every byte of tools/list is paid by
 * every assistant in every conversation. A write that is dangerous for some inputs (a commit that deletes files)
 * keeps the default destructiveHint.
 */
export function toolAnnotations(op: Operation): ToolAnnotations {
  if (op.effect === 'read') return { readOnlyHint: true };
  const destructive = op.effect === 'destructive' || op.confirm !== undefined;
  return {
    ...(destructive ? {} : { destructiveHint: false }),
    ...(op.idempotent ? { idempotentHint: true } : {}),
  };
}

/** The largest safe integer, which zod writes as every integer's bound: true of any JSON number a model sends. */
const SAFE_INTEGER = 9007199254740991;

/**
 * The JSON Schema as published: what only repeats a default or restates the obvious is left out, while the zod
 * schema still enforces all of it (a value over MAX_URL_VALUE_CHARS is refused by name, before anything is sent):
 * integer bounds at ±2^53, the URL value cap, minLength 1 on strings, additionalProperties false below the top.
 */
export function compactSchema(node: unknown, top = true): unknown {
  if (Array.isArray(node)) return node.map((item) => compactSchema(item, false));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if ((key === 'maximum' && value === SAFE_INTEGER) || (key === 'minimum' && value === -SAFE_INTEGER)) continue;
    if (key === 'maxLength' && value === MAX_URL_VALUE_CHARS) continue;
    if (key === 'minLength' && value === 1) continue;
    if (key === 'additionalProperties' && value === false && !top) continue;
    if (key === 'exclusiveMinimum' && value === 0 && (node as { type?: unknown }).type === 'integer') {
      out.minimum = 1;
      continue;
    }
    // Property names are data, not keywords: only their schemas are compacted.
    out[key] = key === 'properties' && value && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, compactSchema(schema, false)]))
      : compactSchema(value, false);
  }
  return out;
}

export interface ToolFilter {
  /** Areas to offer; empty means all. */
  toolsets: readonly string[];
  /** Offer only reads. */
  readOnly: boolean;
}

/** Chooses by the registry's plain facts only, so a catalog built without the zod schemas can be filtered too. */
export function selectOperations<T extends Pick<Operation, 'area' | 'effect'>>(all: readonly T[], filter: ToolFilter): T[] {
  return all.filter((op) =>
    (filter.toolsets.length === 0 || filter.toolsets.includes(op.area)) && (!filter.readOnly || op.effect === 'read'));
}

const descriptorCache = new WeakMap<Operation, ToolDescriptor>();

/** Converted once per operation per process: tools/list is answered often and zod → JSON Schema is not free. */
export function toolDescriptor(op: Operation): ToolDescriptor {
  const cached = descriptorCache.get(op);
  if (cached) return cached;
  const schema = compactSchema(z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' })) as Record<string, unknown>;
  delete schema.$schema;
  const suffix = op.effect === 'destructive' ? ' Needs a human to confirm the exact call before it runs.' : '';
  const descriptor: ToolDescriptor = {
    name: op.name,
    title: op.title,
    description: op.description + suffix,
    inputSchema: { ...schema, type: 'object' },
    annotations: toolAnnotations(op),
  };
  descriptorCache.set(op, descriptor);
  return descriptor;
}
