// SDK v2 clients for the stateless 2026-07-28 revision: one with a human at its elicitation form, one that sends
// each round itself (as an attacker would), and the shapes of their answers.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/client';

export const MODERN = '2026-07-28';

/** An SDK v2 client pinned to the stateless revision; `answer` is the human at its elicitation form. */
export async function modernClient(
  url: string,
  answer: (message: string) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, boolean> },
  headers: Record<string, string> = {},
) {
  const asked: string[] = [];
  const client = new ClientV2(
    { name: 'v2-test', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: MODERN } },
      capabilities: { elicitation: { form: {} } },
    },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    const { message } = request.params as { message: string };
    asked.push(message);
    return answer(message);
  });
  await client.connect(new TransportV2(new URL(url), { requestInit: { headers } }));
  return { client, asked };
}

/**
 * The same client without auto-fulfilment: each round is sent by the test, as an attacker would. `fetch` replaces
 * the transport's (from-address.ts sends from another loopback address).
 */
export async function manualClient(url: string, headers: Record<string, string> = {}, fetch?: typeof globalThis.fetch) {
  const client = new ClientV2(
    { name: 'v2-manual', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: MODERN } },
      capabilities: { elicitation: { form: {} } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(new TransportV2(new URL(url), { requestInit: { headers }, ...(fetch && { fetch }) }));
  const call = (
    name: string,
    args: Record<string, unknown>,
    round: { inputResponses?: Record<string, unknown>; requestState?: string } = {},
  ) =>
    client.request(
      { method: 'tools/call', params: { name, arguments: args, ...round } },
      { allowInputRequired: true },
    ) as Promise<CallToolResult | InputRequiredResult>;
  return { client, call };
}

export const ACCEPT = { inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } };
export const text = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
