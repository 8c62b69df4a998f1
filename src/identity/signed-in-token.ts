// The access token of the terminal's sign-in, for the HTTP client: refreshed when it is about to expire or was refused,
// one refresh across every forgeops process of this user (lock file), the rotated pair stored before it is used.
import { CredentialsFile, hostKey, type SignIn } from './credentials-file.js';
import { refreshTokens, signInOf } from './terminal-login.js';

/** Refreshed this long before it expires: a request sent with a token in its last seconds may arrive after them. */
export const REFRESH_MARGIN_MS = 60_000;

/** The sign-in is gone or can no longer be refreshed: only `forgeops login` helps. */
export class NotSignedInError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotSignedInError';
  }
}

export interface SignedInTokenOptions {
  host: string;
  file?: CredentialsFile;
  now?: () => number;
  /** Told of each refresh (for the log): never the tokens. */
  refreshed?: (signIn: SignIn) => void;
  /** How requests reach the host (its proxy and CA file: codeHostFetch); Node's fetch when absent. */
  fetch?: typeof fetch;
}

/** One sign-in seen from one process: reads the file, and refreshes under the lock. */
export class SignedInToken {
  private readonly host: string;
  private readonly file: CredentialsFile;
  private readonly now: () => number;
  private current?: SignIn;
  /** One refresh at a time in this process; the lock file does the same across processes. */
  private refreshing?: Promise<SignIn>;

  constructor(private readonly options: SignedInTokenOptions) {
    this.host = hostKey(options.host);
    this.file = options.file ?? new CredentialsFile();
    this.now = options.now ?? Date.now;
  }

  /** The access token to send now: refreshed first when within a minute of its expiry. */
  async token(): Promise<string> {
    const signIn = this.current ?? (await this.load());
    if (!this.expiring(signIn)) return signIn.access_token;
    return (await this.refresh(signIn.access_token)).access_token;
  }

  /**
   * The host refused `rejected` (401): refreshes once, unless another process already did. True when there is a
   * different token to try; false when a refresh cannot help.
   */
  async rejected(rejected: string): Promise<boolean> {
    const signIn = await this.refresh(rejected, true);
    return signIn.access_token !== rejected;
  }

  private expiring(signIn: SignIn): boolean {
    return signIn.expires_at !== undefined && signIn.expires_at - this.now() <= REFRESH_MARGIN_MS;
  }

  private async load(): Promise<SignIn> {
    const signIn = await this.file.read(this.host);
    if (!signIn)
      throw new NotSignedInError(`not signed in to ${this.host}: run forgeops login (or set CODEHOST_TOKEN)`);
    this.current = signIn;
    return signIn;
  }

  private refresh(stale: string, refused = false): Promise<SignIn> {
    this.refreshing ??= this.file
      .withLock(async () => {
        // Another process may have refreshed while this one waited for the lock: its pair is the one to use, since
        // the one this process holds was revoked by that refresh.
        const stored = await this.load();
        if (stored.access_token !== stale && !this.expiring(stored)) return stored;
        if (!stored.refresh_token)
          throw new NotSignedInError(
            `the sign-in to ${this.host} ${refused ? 'was refused' : 'has expired'} and has no refresh token: run forgeops login`,
          );
        let tokens: Awaited<ReturnType<typeof refreshTokens>>;
        try {
          tokens = await refreshTokens(
            { host: this.host, clientId: stored.client_id, fetch: this.options.fetch },
            stored.refresh_token,
          );
        } catch (error) {
          const name = (error as { error?: string }).error;
          if (name === 'invalid_grant')
            throw new NotSignedInError(`the sign-in to ${this.host} has expired or was revoked: run forgeops login`);
          throw new Error(`could not refresh the sign-in to ${this.host}: ${(error as Error).message}`);
        }
        const next = signInOf(
          { host: this.host, clientId: stored.client_id },
          tokens,
          stored.account,
          stored.scopes,
          this.now(),
          stored.signed_in_at,
        );
        // Stored before it is used: the old pair is already revoked, so a lost write would sign the person out.
        await this.file.write(next);
        this.current = next;
        this.options.refreshed?.(next);
        return next;
      })
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }
}

/**
 * The HTTP client's token source when CODEHOST_TOKEN is unset: the terminal's sign-in to `host`, looked for on each
 * request until there is one (a `forgeops login` in another terminal counts from the next call), else none (public
 * data only). A credentials file that others can read refuses the request instead of being used or ignored.
 */
export function signInTokenSource(
  host: string,
  log: { info(line: string): void; warn(line: string): void },
  file = new CredentialsFile(),
  send?: typeof fetch,
) {
  let signedIn: SignedInToken | undefined;
  let warned = false;
  return {
    async token(): Promise<string | undefined> {
      if (!signedIn) {
        const signIn = await file.read(host);
        if (!signIn) {
          if (!warned)
            log.warn(
              `CODEHOST_TOKEN is not set and nobody is signed in to ${hostKey(host)} (forgeops login): only public data can be read`,
            );
          warned = true;
          return undefined;
        }
        log.info(`using the sign-in of @${signIn.account.username} to ${hostKey(host)} (forgeops login)`);
        signedIn = new SignedInToken({
          host,
          file,
          fetch: send,
          refreshed: (next) => log.info(`refreshed the sign-in of @${next.account.username} to ${next.host}`),
        });
      }
      return signedIn.token();
    },
    async rejected(token: string): Promise<boolean> {
      return signedIn ? signedIn.rejected(token) : false;
    },
  };
}
