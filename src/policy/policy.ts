// The policy step every front end asks before running: allowed here and now? does a human need to confirm?
import type { Operation } from '../operations/define.js';

export interface PolicyOptions {
  readOnly: boolean;
}

export type Decision =
  | { kind: 'run' }
  | { kind: 'confirm'; prompt: string }
  | { kind: 'deny'; reason: string };

/** Decides what happens to a validated call. Destructive calls always need a human; some writes do depending on input. */
export function decide(op: Operation, input: Record<string, unknown>, options: PolicyOptions): Decision {
  if (options.readOnly && op.effect !== 'read') {
    return {
      kind: 'deny',
      reason: `${op.name} changes data, and forgeops runs in read-only mode (FORGEOPS_READ_ONLY); nothing was sent.`,
    };
  }
  const special = op.confirm?.(input as never);
  if (special) return { kind: 'confirm', prompt: special };
  if (op.effect === 'destructive') return { kind: 'confirm', prompt: describeCall(op, input) };
  return { kind: 'run' };
}

const MAX_VALUE_CHARS = 80;

function show(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}

/**
 * The sentence a human approves: the action, its target (the path parameters, which name what is touched)
 * and every other argument, so that what is confirmed is exactly what runs.
 */
export function describeCall(op: Operation, input: Record<string, unknown>): string {
  const target = op.pathParams
    .filter((p) => input[p] !== undefined)
    .map((p) => `${p === 'id' ? 'project' : p.replace(/_/g, ' ')} ${show(input[p])}`);
  const rest = Object.entries(input)
    .filter(([k, v]) => !op.pathParams.includes(k) && v !== undefined)
    .map(([k, v]) => `${k}=${show(v)}`);
  const effect = op.effect === 'destructive' ? ' This cannot be undone.' : '';
  return `${op.title}: ${target.join(', ')}${rest.length ? ` (${rest.join(', ')})` : ''}.${effect}`;
}
