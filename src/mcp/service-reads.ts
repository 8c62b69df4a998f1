// Reads that prompts, resources and completions make, on the one run path of tools: validation, policy, the
// session's client and token, redaction and an overall deadline all hold for them as for a tool call.
import { executeCall, prepareCall } from '../run/call.js';
import type { Operation, OperationResult } from '../operations/engine/define.js';
import type { ExplainOptions } from '../operations/engine/failures.js';
import type { ApiTransport } from '../http/types.js';

/** A session's operations, each loaded on its first use (see catalog.ts), with the words its failures are explained in. */
export interface SessionRegistry {
  /** One operation by name, loading as little as the catalog can (its area); undefined for an unknown name. */
  operation(name: string): Promise<Operation | undefined>;
  /** Every operation: the meta tools search them all. */
  all(): Promise<readonly Operation[]>;
  explain: ExplainOptions;
}

export interface ServiceReadOptions {
  registry: () => Promise<SessionRegistry>;
  client: ApiTransport;
  readOnly: boolean;
  token?: string;
}

/** A failure keeps the error, so a caller can tell a missing thing (404) from a broken one. */
export type ReadOutcome = { ok: true; result: OperationResult } | { ok: false; message: string; error?: unknown };

export type ServiceRead = (
  name: string,
  args: Record<string, unknown>,
  limits: { signal?: AbortSignal; timeoutMs: number },
) => Promise<ReadOutcome>;

/** A reader for this session; only operations that read may be run through it, whatever the caller asks. */
export function serviceReader(options: ServiceReadOptions): ServiceRead {
  return async (name, args, limits) => {
    const { explain, operation } = await options.registry();
    const op = await operation(name);
    // A programming error, not a user's: the names are fixed in this folder.
    if (op?.effect !== 'read') throw new Error(`${name} is not a read operation of this server`);
    const prepared = prepareCall(op, args, { readOnly: options.readOnly }, explain);
    if (prepared.kind === 'refused') return { ok: false, message: prepared.message };
    if (prepared.kind === 'approve') return { ok: false, message: `${name} needs a human's approval` };
    const outcome = await executeCall(
      op,
      prepared.input,
      {
        client: options.client,
        token: options.token,
        signal: limits.signal,
        deadline: Date.now() + limits.timeoutMs,
      },
      explain,
    );
    return outcome.ok
      ? { ok: true, result: outcome.result }
      : { ok: false, message: outcome.message, error: outcome.error };
  };
}

/** The items of a list result (an empty list for anything else). */
export function itemsOf(result: OperationResult): Record<string, unknown>[] {
  return Array.isArray(result.data)
    ? result.data.filter((item): item is Record<string, unknown> => !!item && typeof item === 'object')
    : [];
}
