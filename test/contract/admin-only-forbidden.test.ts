// A 403 to an operation only administrators may call says so in words: it needs an administrator of the service,
// which no project role gives. Other 403s keep saying the token lacks the access level for the action.
import { afterAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { executeCall } from '../../src/run/call.js';
import { findOperation, operations } from '../../src/operations/index.js';
import { useSandbox } from '../helpers/mcp.js';

const env = useSandbox();
let client: HttpClient | undefined;
afterAll(() => client?.close());

/** A maintainer of the demo projects, not an administrator. */
function maintainer(): HttpClient {
  client ??= new HttpClient({
    baseUrl: env.sandbox.url,
    token: env.sandbox.tokens.maintainer,
    retry: { maxRetries: 0 },
  });
  return client;
}

async function failure(name: string, input: Record<string, unknown>): Promise<string> {
  const outcome = await executeCall(findOperation(name)!, input, { client: maintainer() }, { operations });
  if (outcome.ok) throw new Error(`${name} ran for a maintainer`);
  return outcome.message;
}

describe('403 to an administrators-only operation', () => {
  it('marks exactly the operations whose description says "Administrators only"', () => {
    const said = operations.filter((op) => op.description.startsWith('Administrators only:')).map((op) => op.name);
    expect(said.length).toBeGreaterThan(10);
    expect(operations.filter((op) => op.adminOnly).map((op) => op.name)).toEqual(said);
  });

  it('says the call needs an administrator of the service, for reads and writes alike', async () => {
    for (const [name, input] of [
      ['get_application_settings', {}],
      ['list_audit_events', {}],
      ['create_broadcast_message', { message: 'Maintenance tonight' }],
    ] as const) {
      const message = await failure(name, input);
      expect(message, name).toContain('403');
      expect(message, name).toContain('needs an administrator of the service');
    }
  });

  it('keeps the access-level words for a 403 that a project role can fix', async () => {
    // A developer may not delete a pipeline; a maintainer may.
    const developer = new HttpClient({ baseUrl: env.sandbox.url, token: env.sandbox.tokens.developer });
    const op = findOperation('delete_pipeline')!;
    const outcome = await executeCall(op, { id: 'acme/web', pipeline_id: 1 }, { client: developer }, { operations });
    developer.close();
    if (outcome.ok) throw new Error('a developer deleted a pipeline');
    const { message } = outcome;
    expect(message).toContain('403');
    expect(message).not.toContain('administrator');
    expect(message).toContain('lacks the access level');
  });
});
