// `forgeops serve` of the built CLI in OAuth mode on the embedded sandbox, for the sign-in tests: started on a free
// port, ready once /readyz says so (bounded), with its output kept for failures and the sandbox's address read from it.
import { tmpdir } from 'node:os';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { listensOn, onFreePort } from '../../tools/ports.mjs';

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export interface OAuthServe {
  base: string;
  mcpUrl: string;
  /** The embedded sandbox's address, as the banner printed it. */
  sandboxUrl: string;
  output(): string;
  stop(): void;
}

/**
 * In OAuth mode serve must know its port before it listens (its issuer and the redirect URI it gives the sandbox hold
 * it), so it cannot bind port 0: it is started on a free port, and again on a new one if another program was given
 * that port first.
 */
export function startOAuthServe(env: Record<string, string> = {}): Promise<OAuthServe> {
  return onFreePort((port) => startOAuthServeOn(port, env));
}

async function startOAuthServeOn(port: number, env: Record<string, string>): Promise<OAuthServe> {
  const base = `http://127.0.0.1:${port}`;
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [cli, 'serve', '--port', String(port)], {
    env: { PATH: process.env.PATH ?? '', TMPDIR: tmpdir(), FORGEOPS_MCP_AUTH: 'oauth', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    output += d.toString();
  });
  // Closed once its output is all read: why it stopped ("port … is in use") may come after its exit.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  // Bounded: 400 checks of 50 ms, until the sandbox is up, the service answers and the banner is out; or it stopped.
  for (let i = 0; i < 400 && child.exitCode === null && child.signalCode === null; i++) {
    // Its own socket on the port: another program given the port first may answer /readyz in its place.
    const ready =
      child.pid !== undefined &&
      listensOn(child.pid, port) &&
      (await fetch(`${base}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      ));
    const sandboxUrl = /embedded sandbox at (http:\/\/\S+)/.exec(output)?.[1];
    if (ready && sandboxUrl) {
      return {
        base,
        mcpUrl: `${base}/mcp`,
        sandboxUrl,
        output: () => output,
        stop: () => child.kill('SIGKILL'),
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  await closed;
  throw new Error(`serve did not become ready:\n${output}`);
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Registers a client by DCR, as an MCP host would; its client_id. */
export async function registerClient(base: string, redirectUri: string, name = 'Manual host'): Promise<string> {
  const response = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
  });
  if (response.status !== 201) throw new Error(`registration answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { client_id: string }).client_id;
}

export function authorizeUrl(base: string, params: Record<string, string>): URL {
  const url = new URL(`${base}/oauth/authorize`);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url;
}

/** The authorize URL of a code request with a PKCE S256 challenge, as every OAuth client here sends it; `extra` adds state, scope… */
export function pkceAuthorizeUrl(
  base: string,
  clientId: string,
  redirectUri: string,
  challenge: string,
  extra: Record<string, string> = {},
): URL {
  return authorizeUrl(base, {
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  });
}

/** A raw tools/list POST to `mcpUrl`, with `token` as its bearer when given: what a client sends before any session. */
export function postToolsList(mcpUrl: string, token?: string): Promise<Response> {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token !== undefined && { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
}

export async function tokenRequest(base: string, form: Record<string, string | undefined>) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) if (value !== undefined) body.set(name, value);
  const response = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  return { status: response.status, headers: response.headers, data: (await response.json()) as Record<string, any> };
}

/** A JSON-RPC POST to /mcp with a bearer token on the 2025-11-25 revision, on a session when one is named. */
export function postWithToken(mcpUrl: string, token: string, message: unknown, session?: string) {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2025-11-25',
      ...(session && { 'mcp-session-id': session }),
    },
    body: JSON.stringify(message),
  });
}

/** An initialize with a bearer token: its status (200: a session opened) and WWW-Authenticate. */
export async function listWith(mcpUrl: string, token: string) {
  const response = await postWithToken(mcpUrl, token, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
  });
  await response.body?.cancel();
  return { status: response.status, challenge: response.headers.get('www-authenticate') ?? '' };
}
