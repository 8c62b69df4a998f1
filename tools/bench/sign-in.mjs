// Benchmark: what signing in through forgeops (FORGEOPS_MCP_AUTH=oauth) adds to serve, against token mode in the same
// run on the same sandbox: S people each sign in through one MCP host (registered once by DCR) as hosts make them
// (forgeops's consent, the code host's sign-in and consent, the code exchanged), then each opens a session and makes
// M list_pipelines calls. Counted in
// the sandbox's own request log: serve's code-host requests per sign-in (the person's browser pages left out) and per
// session beyond its calls' own (target: at most one round trip a session); timed: serve CPU and p50 per call
// (target: at most 0.1 ms more than token mode). Run by hand after `npm run build`:
// node tools/bench/sign-in.mjs [sessions=50] [calls each=40] [rounds=3]
// Smoke mode (the test suite runs it so the bench cannot rot; nothing timed is judged): --smoke
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { onFreePort } from '../ports.mjs';
import { numbers, smoke } from './args.mjs';
import { cleanup, runBench, dropConnections, loadOnServe, sessionClient, startServe, stop } from './serve-harness.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SESSIONS = smoke ? 2 : Math.max(1, numbers[0] ?? 50);
const CALLS = smoke ? 3 : Math.max(1, numbers[1] ?? 40);
const ROUNDS = smoke ? 1 : Math.max(1, numbers[2] ?? 3);
const TARGETS = { codeHostRequestsPerSession: 1, addedMsPerCall: 0.1 };
const OVERALL_TIMEOUT_MS = smoke ? 60_000 : 900_000;
const REDIRECT = 'http://127.0.0.1:1/host/callback';
const SCOPES = ['api', 'read_api', 'read_user', 'openid'];

const overall = setTimeout(() => {
  console.error(`sign-in bench: gave up after ${OVERALL_TIMEOUT_MS / 1000} s`);
  void cleanup().finally(() => process.exit(1));
}, OVERALL_TIMEOUT_MS);
process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));

// ---- the person's browser: the same steps as test/helpers/oauth-browser.ts (which plain Node cannot import) ----
const decode = (text) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

function formsOf(html) {
  return [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)].map(([, attributes, inner]) => {
    const attribute = (text, name) => new RegExp(`\\b${name}="([^"]*)"`).exec(text)?.[1];
    const fields = {};
    for (const [input] of inner.matchAll(/<input\b[^>]*>/g)) {
      const name = attribute(input, 'name');
      const value = attribute(input, 'value');
      if (name && value !== undefined) fields[name] = decode(value);
    }
    const decisions = [...inner.matchAll(/<button\b[^>]*name="decision"[^>]*value="([^"]*)"/g)].map((m) => m[1]);
    return {
      action: decode(attribute(attributes, 'action') ?? ''),
      method: attribute(attributes, 'method') ?? 'get',
      fields,
      decisions,
    };
  });
}

/** Cookies per host name; counts the requests it makes to `countedHost` (the code host), which are the person's. */
class Browser {
  jar = new Map();
  requestsTo = 0;
  constructor(countedHost) {
    this.countedHost = countedHost;
  }
  async fetch(url, init = {}) {
    const target = new URL(url);
    if (target.host === this.countedHost) this.requestsTo += 1;
    const cookies = this.jar.get(target.hostname);
    const headers = {};
    if (cookies?.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(target, {
      method: init.method?.toUpperCase() ?? 'GET',
      headers,
      body: init.form ? new URLSearchParams(init.form).toString() : undefined,
      redirect: 'manual',
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const jar = this.jar.get(target.hostname) ?? new Map();
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      this.jar.set(target.hostname, jar);
    }
    return { status: response.status, url: target.href, headers: response.headers, html: await response.text() };
  }
  /** Follows redirects and meta refreshes until a page asks something, or the address is the client's redirect URI. */
  async open(url, init = {}) {
    let next = { url: String(url), ...init };
    for (let hops = 0; hops < 15; hops++) {
      if (next.url.startsWith(REDIRECT)) return { leftTo: new URL(next.url) };
      const page = await this.fetch(next.url, next);
      const location = page.headers.get('location');
      const refresh = /<meta http-equiv="refresh" content="0;url=([^"]*)">/.exec(page.html)?.[1];
      const onward = page.status >= 300 && page.status < 400 && location ? location : refresh && decode(refresh);
      if (!onward) return page;
      next = { url: new URL(onward, page.url).href };
    }
    throw new Error('too many redirects');
  }
  submit(page, fields, action) {
    const forms = formsOf(page.html).filter((f) => !action || f.action.endsWith(action));
    if (forms.length !== 1)
      throw new Error(`expected one form on ${page.url} (${page.status}): ${page.html.slice(0, 300)}`);
    return this.open(new URL(forms[0].action, page.url), {
      method: forms[0].method,
      form: { ...forms[0].fields, ...fields },
    });
  }
}

/** Registers an MCP host by DCR, as a host does once: its client_id. */
async function registerHost(serveBase) {
  const registered = await fetch(`${serveBase}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Bench host', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
  });
  if (registered.status !== 201) throw new Error(`registration answered ${registered.status}`);
  return (await registered.json()).client_id;
}

/** One person's sign-in through the host `clientId`: its forgeops access token, and the browser's code-host requests. */
async function signIn(serveBase, clientId, codeHost, username) {
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${serveBase}/oauth/authorize`);
  const params = {
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    state: 'bench',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    scope: 'api',
  };
  for (const [name, value] of Object.entries(params)) authorize.searchParams.set(name, value);
  const browser = new Browser(codeHost);
  let page = await browser.open(authorize);
  if (!page.leftTo) page = await browser.submit(page, { decision: 'allow' }, '/oauth/consent');
  if (!page.leftTo && page.url.includes('/users/sign_in'))
    page = await browser.submit(page, { username, password: `${username}-sandbox-password` });
  if (!page.leftTo && formsOf(page.html).some((f) => f.decisions.includes('authorize')))
    page = await browser.submit(page, { decision: 'authorize' });
  if (!page.leftTo) throw new Error(`the browser was not sent back (${page.status} at ${page.url})`);
  const code = page.leftTo.searchParams.get('code');
  const token = await fetch(`${serveBase}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
    }),
  });
  const data = await token.json();
  if (!data.access_token) throw new Error(`the token endpoint answered ${token.status}: ${JSON.stringify(data)}`);
  return { accessToken: data.access_token, browserRequests: browser.requestsTo };
}

// ---- the measurements ----
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const USERS = ['bob', 'alice', 'carol'];

/** One mode's serve: its sign-ins (OAuth), then SESSIONS sessions × CALLS calls, with the sandbox's requests counted. */
async function measureMode(mode, sandbox, application) {
  const oauthEnv = (port) => ({
    FORGEOPS_PORT: String(port),
    FORGEOPS_MCP_AUTH: 'oauth',
    FORGEOPS_PUBLIC_URL: `http://127.0.0.1:${port}`,
    FORGEOPS_OAUTH_CLIENT_ID: application.uid,
    FORGEOPS_OAUTH_CLIENT_SECRET: application.secret,
    // As docs/mcp.md recommends: the code exchange's ID token says who signed in (without openid: GET /user too).
    FORGEOPS_OAUTH_SCOPES: 'api openid',
    CODEHOST_TOKEN: '',
  });
  // In OAuth mode serve must know its port before it listens (its issuer and the redirect URI hold it): a free one,
  // and a new one if another program was given it first. In token mode it binds one the system gives it (port 0).
  const serve =
    mode === 'oauth'
      ? await onFreePort((port) => startServe(sandbox.url, oauthEnv(port)))
      : await startServe(sandbox.url, { FORGEOPS_MCP_AUTH: 'token' });
  const { port } = serve;
  try {
    const codeHost = new URL(sandbox.url).host;
    // Ready means serve has checked the code host once (its start-up probe): that request is no session's.
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    if (ready.status !== 200) throw new Error(`serve's /readyz answered ${ready.status}`);
    sandbox.requests.clear();
    const signIns = [];
    // One host, registered once (serve limits registrations), through which each person signs in.
    const clientId = mode === 'oauth' ? await registerHost(`http://127.0.0.1:${port}`) : undefined;
    for (let i = 0; i < SESSIONS; i++)
      signIns.push(
        mode === 'oauth'
          ? await signIn(`http://127.0.0.1:${port}`, clientId, codeHost, USERS[i % USERS.length])
          : undefined,
      );
    const signInRequests = sandbox.requests.all().length - signIns.reduce((n, s) => n + (s?.browserRequests ?? 0), 0);
    sandbox.requests.clear();
    let opened = 0;
    const run = await loadOnServe(serve.url, [serve.child.pid], {
      sessions: SESSIONS,
      calls: CALLS,
      // Each session with its own person's token; the warm-up's sessions take them round.
      client: () => {
        const signedIn = signIns[opened++ % SESSIONS];
        return sessionClient(serve.url, signedIn ? { authorization: `Bearer ${signedIn.accessToken}` } : {})();
      },
    });
    const warmUpCalls = Math.min(SESSIONS, 50) * Math.min(CALLS, 20);
    // Each list_pipelines call is one request of its own; what is left is what the sign-in adds.
    const beyondCalls = sandbox.requests.all().length - (warmUpCalls + run.calls);
    const sessions = Math.min(SESSIONS, 50) + SESSIONS;
    return {
      signInRequests: signInRequests / SESSIONS,
      perSession: beyondCalls / sessions,
      cpuMsPerCall: run.cpuMsPerCall,
      p50: run.p50,
    };
  } finally {
    await stop(serve);
    await dropConnections();
  }
}

async function main() {
  console.log(
    `sign-in bench: ${SESSIONS} people signed in, a session each × ${CALLS} list_pipelines calls, ${ROUNDS} rounds${smoke ? ' (smoke mode: nothing here is a measurement)' : ''}`,
  );
  const { startSandbox } = await import(`${root}dist/sandbox/server.js`);
  // forgeops's application at the code host: its redirect URI's port is any on loopback (RFC 8252 §7.3).
  const sandbox = await startSandbox({
    port: 0,
    applications: [
      {
        name: 'forgeops',
        uid: 'forgeops-bench',
        redirect_uris: ['http://127.0.0.1:8750/oauth/callback'],
        scopes: SCOPES,
        confidential: true,
        trusted: false,
      },
    ],
  });
  try {
    const rounds = { token: [], oauth: [] };
    for (let round = 0; round < ROUNDS; round++) {
      rounds.token.push(await measureMode('token', sandbox, sandbox.applications[0]));
      rounds.oauth.push(await measureMode('oauth', sandbox, sandbox.applications[0]));
    }
    const of = (mode, key) => median(rounds[mode].map((r) => r[key]));
    const f = (n, digits = 2) => n.toFixed(digits);
    for (const mode of ['token', 'oauth'])
      console.log(
        `${mode === 'token' ? 'baseline (token mode)' : 'oauth mode'}: code-host requests per sign-in ${f(of(mode, 'signInRequests'))}, per session beyond its calls ${f(of(mode, 'perSession'))}; serve CPU ${f(of(mode, 'cpuMsPerCall'), 3)} ms/call, p50 ${f(of(mode, 'p50'))} ms`,
      );
    // Here every session is a sign-in of its own (a host that signs in again for each): the most sign-in can add.
    const added = of('oauth', 'signInRequests') + of('oauth', 'perSession') - of('token', 'perSession');
    const addedMs = of('oauth', 'cpuMsPerCall') - of('token', 'cpuMsPerCall');
    console.log(
      `targets: sign-in adds ${f(added)} code-host requests per session, a sign-in each (≤ ${TARGETS.codeHostRequestsPerSession}: ${added <= TARGETS.codeHostRequestsPerSession ? 'met' : 'MISSED'}), ` +
        `${f(of('oauth', 'perSession') - of('token', 'perSession'))} once signed in; ${f(addedMs, 3)} ms serve CPU per call (≤ ${TARGETS.addedMsPerCall}: ${addedMs <= TARGETS.addedMsPerCall ? 'met' : 'MISSED'}), ` +
        `p50 ${f(of('oauth', 'p50') - of('token', 'p50'), 3)} ms`,
    );
  } finally {
    await sandbox.close();
  }
}

runBench('sign-in', main, overall);
