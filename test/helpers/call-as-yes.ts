// Runs a registry operation as a person who answers yes to any approval request: how tests play the one fixing main
// (a retry, a revert as a merge request, a merge) while forgeops watches.
import type { ApiTransport } from '../../src/http/types.js';
import type { Operation } from '../../src/operations/engine/define.js';
import { operations as registry } from '../../src/operations/index.js';
import { testDispatcher } from './dispatcher.js';

export async function callAnsweringYes<T = Record<string, unknown>>(
  client: ApiTransport,
  name: string,
  input: Record<string, unknown>,
  operations: readonly Operation[] = registry,
): Promise<T> {
  const dispatcher = testDispatcher(() => client, { operations });
  let reply = await dispatcher.call(name, input);
  if (reply.kind === 'approve') reply = await dispatcher.approved(reply.operation, reply.input);
  if (reply.kind !== 'message' || !reply.outcome?.ok)
    throw new Error(`${name} failed: ${JSON.stringify(reply.kind === 'message' ? reply.message : reply.kind)}`);
  return reply.outcome.result.data as T;
}
