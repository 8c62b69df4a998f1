// The parts of undici the HTTP client uses, imported from undici's own files rather than its index: the index loads
// all of undici (fetch, WebSocket, EventSource, mock agents, caches), about three times the code, and a stdio
// server pays for it on its first call (tools/bench/mcp.mjs). The paths are undici 7's (package-lock pins it); the
// contract tests send every request through them, so a move in a new undici fails them rather than a user's call.
import type * as Undici from 'undici';
import AgentClass from 'undici/lib/dispatcher/agent.js';
import DispatcherClass from 'undici/lib/dispatcher/dispatcher.js';
import EnvHttpProxyAgentClass from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import api from 'undici/lib/api/index.js';

// What undici's index does to give every dispatcher request(), stream() and the rest; done twice, it changes nothing.
Object.assign(DispatcherClass.prototype, api);

export const Agent = AgentClass;
export const EnvHttpProxyAgent = EnvHttpProxyAgentClass;
export type FormData = Undici.FormData;

/** undici's FormData, which brings much of its fetch code: loaded by the first upload, not by every first call. */
export async function loadFormData(): Promise<typeof Undici.FormData> {
  return (await import('undici/lib/web/fetch/formdata.js')).default.FormData;
}
