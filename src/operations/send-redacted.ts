// One request for an operation whose answers hold credentials (integrations, application settings): sent with an
// open `settings` object spread into the top-level parameters the service reads, answered with credentials redacted.
import type { Operation, OperationResult, RunContext } from './define.js';
import { buildRequest } from './execute.js';
import { asRecord } from './present.js';
import { redactSecrets } from './secrets.js';

export async function sendRedacted(op: Operation, ctx: RunContext, input: Record<string, unknown>): Promise<OperationResult> {
  const { settings, ...rest } = input;
  const res = await ctx.client.request(buildRequest(op, { ...rest, ...asRecord(settings) }, ctx));
  return { data: redactSecrets(res.data), status: res.status };
}
