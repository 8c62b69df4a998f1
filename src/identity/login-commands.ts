// `forgeops login`, `logout` and `whoami`: the terminal's sign-in to the code host, kept in the credentials file.
import { spawn } from 'node:child_process';
import type { Config } from '../config.js';
import { codeHostFetch } from '../http/code-host-fetch.js';
import { CredentialsFile, hostKey, type SignIn } from './credentials-file.js';
import { NotSignedInError, SignedInToken } from './signed-in-token.js';
import {
  browserLogin,
  deviceLogin,
  fetchAccount,
  LoginError,
  LoginSetupError,
  revokeToken,
  signInOf,
  type TerminalClient,
  type Tokens,
} from './terminal-login.js';

export { LoginError, LoginSetupError };

/** The scopes `forgeops login --scopes` takes: the two that open the REST API. */
export const LOGIN_SCOPES = ['api', 'read_api'] as const;

export interface CommandIo {
  out: (text: string) => void;
  env?: Record<string, string | undefined>;
  file?: CredentialsFile;
  signal?: AbortSignal;
  /** For tests: how long the browser flow waits, and the wait between device polls. */
  browserWaitMs?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** A sign-in outlives the process only on a code host of its own, not on the sandbox made inside each process. */
const EMBEDDED_SANDBOX =
  "no CODEHOST_URL is set, so forgeops uses its embedded sandbox, which lives inside each forgeops process: a sign-in to it would end with this command. To try the sign-in, run 'forgeops sandbox' in another terminal, then: CODEHOST_URL=<its address> FORGEOPS_CLI_CLIENT_ID=forgeops-cli-sandbox forgeops login";

function configuredHost(config: Config): string {
  if (!config.codehost.url) throw new LoginSetupError(EMBEDDED_SANDBOX);
  return hostKey(config.codehost.url);
}

/**
 * The device grant where no browser on this machine can be opened: over SSH, or on Linux without a display. A
 * desktop gets the browser.
 */
export function prefersDevice(env: Record<string, string | undefined>, platform = process.platform): boolean {
  if (env.SSH_CONNECTION || env.SSH_TTY) return true;
  if (platform === 'linux' || platform === 'freebsd' || platform === 'openbsd')
    return !env.DISPLAY && !env.WAYLAND_DISPLAY;
  return false;
}

function opener(command: readonly string[] | undefined, out: (text: string) => void) {
  return (url: string) => {
    out(`Open this address in a browser to sign in:\n  ${url}\n`);
    if (!command) return;
    const [program, ...args] = command;
    const child = spawn(program, [...args, url], { stdio: 'ignore', detached: true });
    child.on('error', (error) => out(`(FORGEOPS_APPROVAL_OPEN: cannot run '${program}': ${error.message})\n`));
    child.unref();
  };
}

export interface LoginOptions {
  mode?: 'device' | 'browser';
  scopes?: string;
}

export async function login(config: Config, options: LoginOptions, io: CommandIo): Promise<SignIn> {
  const host = configuredHost(config);
  const clientId = config.codehost.cliClientId;
  if (!clientId)
    throw new LoginSetupError(
      `FORGEOPS_CLI_CLIENT_ID is not set: register a public application at ${host} for forgeops login (not confidential, scopes api and read_api, device grant on, redirect URI http://127.0.0.1/callback) and set FORGEOPS_CLI_CLIENT_ID to its client id`,
    );
  const scope = options.scopes ?? 'api';
  if (!(LOGIN_SCOPES as readonly string[]).includes(scope))
    throw new LoginSetupError(`--scopes must be api or read_api, got '${scope}'`);
  const scopes = [scope];
  const client: TerminalClient = { host, clientId, fetch: codeHostFetch(config.codehost) };
  const env = io.env ?? process.env;
  const mode = options.mode ?? (prefersDevice(env) ? 'device' : 'browser');
  const file = io.file ?? new CredentialsFile();
  let tokens: Tokens;
  if (mode === 'device') {
    tokens = await deviceLogin(client, {
      scopes,
      signal: io.signal,
      sleep: io.sleep,
      show: ({ verificationUri, userCode, verificationUriComplete }) =>
        io.out(
          [
            `To sign in to ${host}, open ${verificationUri} and enter the code: ${userCode}`,
            ...(verificationUriComplete ? [`(or open ${verificationUriComplete})`] : []),
            'Waiting for the approval (Ctrl-C to stop)…',
            '',
          ].join('\n'),
        ),
    });
  } else {
    tokens = await browserLogin(client, {
      scopes,
      signal: io.signal,
      waitMs: io.browserWaitMs,
      open: opener(config.approval.openCommand, io.out),
      refused: (why) => io.out(`(${why})\n`),
    });
  }
  const account = await fetchAccount(client, tokens.access_token);
  const signIn = signInOf(client, tokens, account, scopes);
  await file.write(signIn);
  io.out(`Signed in to ${host} as @${account.username} (scopes ${signIn.scopes.join(' ')}); kept in ${file.path}\n`);
  if (config.codehost.token)
    io.out('Note: CODEHOST_TOKEN is set in this environment, and an explicit CODEHOST_TOKEN wins over the sign-in.\n');
  return signIn;
}

/** Revokes at the code host, then forgets locally; an unreachable host still loses the local copy. */
export async function logout(config: Config, io: CommandIo): Promise<void> {
  const host = configuredHost(config);
  const file = io.file ?? new CredentialsFile();
  const signIn = await file.read(host);
  if (!signIn) {
    io.out(`Not signed in to ${host}; nothing to do.\n`);
    return;
  }
  const client = { host, clientId: signIn.client_id, fetch: codeHostFetch(config.codehost) };
  const failures: string[] = [];
  // The refresh token first: it is the one that would let the pair live on.
  const tokens: Array<[string | undefined, 'refresh_token' | 'access_token']> = [
    [signIn.refresh_token, 'refresh_token'],
    [signIn.access_token, 'access_token'],
  ];
  for (const [token, hint] of tokens) {
    if (!token) continue;
    await revokeToken(client, token, hint).catch((error: unknown) =>
      failures.push(`${hint}: ${error instanceof Error ? error.message : String(error)}`),
    );
  }
  await file.remove(host);
  if (failures.length === 0) {
    io.out(
      `Signed out of ${host} (@${signIn.account.username}): the tokens were revoked and removed from ${file.path}\n`,
    );
    return;
  }
  io.out(
    `Removed the sign-in of @${signIn.account.username} to ${host} from ${file.path}, but revoking it at ${host} failed (${failures.join('; ')}). The access token expires by itself; revoke the application '${signIn.client_id}' under your account's Applications at ${host} to end the refresh token.\n`,
  );
}

/** Who the configured host's calls run as, and by which credential. Exit status 1 when nobody is signed in. */
export async function whoami(config: Config, io: CommandIo): Promise<number> {
  if (!config.codehost.url) {
    io.out(
      config.codehost.token
        ? 'No CODEHOST_URL: the embedded sandbox, with CODEHOST_TOKEN from the environment.\n'
        : 'No CODEHOST_URL: the embedded sandbox, as its demo maintainer (its own token); forgeops login needs a code host of its own.\n',
    );
    return 0;
  }
  const host = hostKey(config.codehost.url);
  const send = codeHostFetch(config.codehost);
  const file = io.file ?? new CredentialsFile();
  const stored = await file.read(host);
  if (config.codehost.token) {
    const who = await accountOf(host, send, { 'private-token': config.codehost.token });
    io.out(
      `${host}: CODEHOST_TOKEN from the environment is in use${who ? ` (@${who.username})` : ''}; it wins over forgeops login${stored ? ` (a sign-in as @${stored.account.username} is kept but unused)` : ''}.\n`,
    );
    return 0;
  }
  if (!stored) {
    io.out(`Not signed in to ${host}; run forgeops login (or set CODEHOST_TOKEN).\n`);
    return 1;
  }
  // Asked of the host, refreshing as a call would: whoami says whether the sign-in still works, not only what was kept.
  const token = new SignedInToken({ host, file, fetch: send });
  let account: SignIn['account'] | undefined;
  let problem: string | undefined;
  try {
    let access = await token.token();
    account = await fetchAccount({ host, fetch: send }, access).catch(async (error: unknown) => {
      if (!(error instanceof LoginError && error.status === 401) || !(await token.rejected(access))) throw error;
      access = await token.token();
      return fetchAccount({ host, fetch: send }, access);
    });
  } catch (error) {
    if (error instanceof NotSignedInError) {
      io.out(`${error.message}\n`);
      return 1;
    }
    problem = error instanceof Error ? error.message : String(error);
  }
  const now = (await file.read(host)) ?? stored;
  const until = now.expires_at ? `; access token valid until ${new Date(now.expires_at).toISOString()}` : '';
  io.out(
    `Signed in to ${host} as @${(account ?? now.account).username} with forgeops login (scopes ${now.scopes.join(' ')}${until})\n`,
  );
  if (problem) io.out(`(could not check it with ${host}: ${problem})\n`);
  return 0;
}

async function accountOf(
  host: string,
  send: typeof fetch,
  headers: Record<string, string>,
): Promise<{ username: string } | undefined> {
  try {
    const response = await send(`${host}/api/v4/user`, { headers, signal: AbortSignal.timeout(10_000) });
    if (!response.ok) return undefined;
    const user = (await response.json()) as { username?: unknown };
    return typeof user.username === 'string' ? { username: user.username } : undefined;
  } catch {
    return undefined;
  }
}
