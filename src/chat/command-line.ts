// A call written back as the chat line that makes it (`pipeline retry acme/web 42`): how a follow-up reads as text.
import type { Operation } from '../operations/engine/define.js';
import { formatValue } from './help.js';

/**
 * Path values first, in route order, then the operation's own chat values, as long as none is missing; every other
 * value as key=value. Parses back to the same input.
 */
export function commandLine(op: Operation, input: Record<string, unknown>, prefix = ''): string {
  const positional: string[] = [];
  for (const param of [...op.pathParams, ...(op.chatValues ?? [])]) {
    if (input[param] === undefined) break;
    positional.push(param);
  }
  const values = positional.map((param) => formatValue(input[param]));
  const keyed = Object.entries(input)
    .filter(([key, value]) => value !== undefined && !positional.includes(key))
    .map(([key, value]) => `${key}=${formatValue(value)}`);
  return [`${prefix}${op.chat}`, ...values, ...keyed].join(' ');
}
