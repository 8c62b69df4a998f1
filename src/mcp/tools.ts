// Registry → MCP tool descriptors: name, title, description, JSON Schema from zod, annotations from effect.
import { z } from 'zod';
import type { Operation } from '../operations/define.js';

export interface ToolDescriptor {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
}

export interface ToolFilter {
  /** Areas to offer; empty means all. */
  toolsets: readonly string[];
  /** Offer only reads. */
  readOnly: boolean;
}

export function selectOperations(all: readonly Operation[], filter: ToolFilter): Operation[] {
  return all.filter((op) =>
    (filter.toolsets.length === 0 || filter.toolsets.includes(op.area)) && (!filter.readOnly || op.effect === 'read'));
}

const descriptorCache = new WeakMap<Operation, ToolDescriptor>();

/** Converted once per operation per process: tools/list is answered often and zod → JSON Schema is not free. */
export function toolDescriptor(op: Operation): ToolDescriptor {
  const cached = descriptorCache.get(op);
  if (cached) return cached;
  const schema = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  const suffix = op.effect === 'destructive' ? ' Needs a human to confirm the exact call before it runs.' : '';
  const descriptor: ToolDescriptor = {
    name: op.name,
    title: op.title,
    description: op.description + suffix,
    inputSchema: { ...schema, type: 'object' },
    annotations: {
      title: op.title,
      readOnlyHint: op.effect === 'read',
      // A write that is dangerous for some inputs (a forced commit) may destroy data: say so.
      destructiveHint: op.effect === 'destructive' || op.confirm !== undefined,
      idempotentHint: op.idempotent,
      openWorldHint: true,
    },
  };
  descriptorCache.set(op, descriptor);
  return descriptor;
}
