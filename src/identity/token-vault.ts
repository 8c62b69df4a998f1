// The code host's tokens of each signed-in person, encrypted at rest in the shared state store, refreshed by one
// replica at a time: the code host rotates both tokens on a refresh, so two replicas refreshing the same person
// at once would leave one holding a dead pair and sign the person out.
import { hkdfSync, randomUUID } from 'node:crypto';
import { CompactEncrypt, compactDecrypt } from 'jose';
import type { StateStore } from '../state/store.js';
import {
  type CodeHostAccount,
  type CodeHostOAuth,
  CodeHostOAuthError,
  type CodeHostTokens,
} from './code-host-oauth.js';

/** The key a person is stored under: the code host's user id, which (unlike a username) never changes. */
export const personKey = (account: Pick<CodeHostAccount, 'id'>): string => `codehost-user:${account.id}`;

interface VaultRecord {
  /** The CodeHostTokens as a JWE (dir, A256GCM) whose protected header names the person. */
  sealed: string;
  account: CodeHostAccount;
  /** Epoch ms, in the clear so that waiters can see a refresh land without opening the box. */
  expiresAt: number;
  savedAt: number;
}

export interface TokenVaultOptions {
  store: StateStore;
  /** FORGEOPS_SECRET, or a key every replica shares: the vault's key is derived from it. */
  secret: string;
  oauth: CodeHostOAuth;
  now?: () => number;
  /** Refresh this long before expiry (default a minute), so a call never starts with a token about to die. */
  refreshMarginMs?: number;
  /** How long a replica waits for another's refresh of the same person (default 15 s). */
  waitForPeerMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const RECORD_PREFIX = 'identity:codehost-tokens:';
const LOCK_PREFIX = 'identity:refresh-lock:';
/** A sign-in unused this long is forgotten (each save starts the count again). */
const RECORD_TTL_MS = 90 * 24 * 3600 * 1000;
/** Longer than one refresh can take (the code host client's own timeout is 30 s); a crashed holder frees it then. */
const LOCK_TTL_MS = 45_000;
const POLL_MS = 100;
const CONTENT_ENCRYPTION = { alg: 'dir', enc: 'A256GCM' } as const;

/** Opened boxes kept in memory at most (see TokenVault.opened): one per signed-in person, for a team or several. */
const MAX_OPENED_BOXES = 1_000;

export class TokenVault {
  private readonly store: StateStore;
  private readonly oauth: CodeHostOAuth;
  private readonly key: Uint8Array;
  private readonly now: () => number;
  private readonly refreshMarginMs: number;
  private readonly waitForPeerMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  /**
   * Boxes already opened, by their sealed text: every request of a signed-in person reads the record, and the same box
   * opens to the same pair (AES-GCM was about a sixth of serve's CPU per call). A new or removed record is read from the
   * store all the same, so a refresh or a sign-out is seen at once. Bounded, so it cannot grow without end.
   */
  private readonly opened = new Map<string, { person: string; tokens: CodeHostTokens }>();
  /** This replica's refreshes under way, so concurrent calls of one person here share one. */
  private readonly refreshing = new Map<string, Promise<string | undefined>>();

  constructor(options: TokenVaultOptions) {
    this.store = options.store;
    this.oauth = options.oauth;
    // HKDF, not the secret itself: this key serves this one purpose only.
    this.key = new Uint8Array(hkdfSync('sha256', options.secret, 'forgeops', 'code host tokens v1', 32));
    this.now = options.now ?? Date.now;
    this.refreshMarginMs = options.refreshMarginMs ?? 60_000;
    this.waitForPeerMs = options.waitForPeerMs ?? 15_000;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Keeps a person's pair (after a sign-in or a refresh), replacing what was there. */
  async save(person: string, tokens: CodeHostTokens, account: CodeHostAccount): Promise<void> {
    const sealed = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(tokens)))
      .setProtectedHeader({ ...CONTENT_ENCRYPTION, sub: person })
      .encrypt(this.key);
    const record: VaultRecord = { sealed, account, expiresAt: tokens.expiresAt, savedAt: this.now() };
    await this.store.set(RECORD_PREFIX + person, record, { ttlMs: RECORD_TTL_MS });
  }

  /** The account a person signed in as, or undefined when they are not signed in. */
  async account(person: string): Promise<CodeHostAccount | undefined> {
    return (await this.store.get<VaultRecord>(RECORD_PREFIX + person))?.account;
  }

  /**
   * A code-host access token for the person that is good for at least the refresh margin, refreshing it when needed;
   * undefined when they are not signed in or the code host no longer honours their grant (they must sign in again).
   * A refresh the code host cannot answer now (down, timed out) rejects and keeps the pair for the next attempt.
   */
  async accessToken(person: string): Promise<string | undefined> {
    const tokens = await this.read(person);
    if (!tokens) return undefined;
    if (tokens.expiresAt - this.refreshMarginMs > this.now()) return tokens.accessToken;
    return this.refreshOnce(person, tokens.accessToken);
  }

  /**
   * The API refused `rejected` (401) though it had not expired by the clock (revoked, or the clocks disagree): a new
   * token when a refresh brings one, else undefined. A token another call already replaced is not refreshed again.
   */
  async afterRejection(person: string, rejected: string): Promise<string | undefined> {
    const tokens = await this.read(person);
    if (!tokens) return undefined;
    if (tokens.accessToken !== rejected) return tokens.accessToken;
    return this.refreshOnce(person, rejected);
  }

  /**
   * Signs a person out: revokes the refresh and the access token at the code host and forgets them. The local record
   * goes even when the code host cannot be reached; `revoked` says whether it confirmed.
   */
  async signOut(person: string): Promise<{ signedIn: boolean; revoked: boolean }> {
    const tokens = await this.read(person);
    const existed = await this.store.delete(RECORD_PREFIX + person);
    if (!tokens) return { signedIn: existed, revoked: !existed };
    let revoked = true;
    for (const token of [tokens.refreshToken, tokens.accessToken]) {
      if (!token) continue;
      try {
        await this.oauth.revoke(token);
      } catch {
        revoked = false;
      }
    }
    return { signedIn: true, revoked };
  }

  private async read(person: string): Promise<CodeHostTokens | undefined> {
    const record = await this.store.get<VaultRecord>(RECORD_PREFIX + person);
    return record ? this.open(person, record) : undefined;
  }

  /** The pair in a record, or undefined when it cannot be opened (another person's box, or the secret changed). */
  private async open(person: string, record: VaultRecord): Promise<CodeHostTokens | undefined> {
    const known = this.opened.get(record.sealed);
    if (known) return known.person === person ? known.tokens : undefined;
    const tokens = await this.unseal(person, record);
    if (tokens) {
      if (this.opened.size >= MAX_OPENED_BOXES) this.opened.clear();
      this.opened.set(record.sealed, { person, tokens });
    }
    return tokens;
  }

  private async unseal(person: string, record: VaultRecord): Promise<CodeHostTokens | undefined> {
    try {
      const { plaintext, protectedHeader } = await compactDecrypt(record.sealed, this.key, {
        keyManagementAlgorithms: [CONTENT_ENCRYPTION.alg],
        contentEncryptionAlgorithms: [CONTENT_ENCRYPTION.enc],
      });
      // The header is authenticated with the content: a box copied into another person's record fails here.
      if (protectedHeader.sub !== person) return undefined;
      return JSON.parse(new TextDecoder().decode(plaintext)) as CodeHostTokens;
    } catch {
      return undefined;
    }
  }

  private refreshOnce(person: string, stale: string): Promise<string | undefined> {
    const running = this.refreshing.get(person);
    if (running) return running;
    const refresh = this.refreshAcrossReplicas(person, stale).finally(() => this.refreshing.delete(person));
    this.refreshing.set(person, refresh);
    return refresh;
  }

  /** One replica refreshes; the others wait for its new pair to be stored and then use it. */
  private async refreshAcrossReplicas(person: string, stale: string): Promise<string | undefined> {
    const lock = LOCK_PREFIX + person;
    const owner = randomUUID();
    const deadline = this.now() + this.waitForPeerMs;
    for (;;) {
      if (await this.store.add(lock, owner, { ttlMs: LOCK_TTL_MS })) {
        try {
          return await this.refreshHoldingLock(person, stale);
        } finally {
          await this.release(lock, owner);
        }
      }
      await this.sleep(POLL_MS);
      const current = await this.read(person);
      if (!current) return undefined;
      // Another replica's refresh landed: its pair is the one to use.
      if (current.accessToken !== stale && current.expiresAt - this.refreshMarginMs > this.now()) {
        return current.accessToken;
      }
      if (this.now() > deadline) {
        throw new CodeHostOAuthError(
          'temporarily_unavailable',
          'another forgeops replica is refreshing this sign-in and has not finished; try again',
        );
      }
    }
  }

  private async refreshHoldingLock(person: string, stale: string): Promise<string | undefined> {
    // Read again under the lock: a replica that held it just before may have refreshed already.
    const record = await this.store.get<VaultRecord>(RECORD_PREFIX + person);
    const tokens = record && (await this.open(person, record));
    if (!record || !tokens) return undefined;
    if (tokens.accessToken !== stale && tokens.expiresAt - this.refreshMarginMs > this.now()) {
      return tokens.accessToken;
    }
    if (!tokens.refreshToken) {
      await this.store.delete(RECORD_PREFIX + person);
      return undefined;
    }
    let fresh: CodeHostTokens;
    try {
      fresh = await this.oauth.refresh(tokens.refreshToken);
    } catch (error) {
      // The grant is gone (revoked at the code host, or rotated by someone else): the person signs in again.
      if (error instanceof CodeHostOAuthError && error.error === 'invalid_grant') {
        await this.store.delete(RECORD_PREFIX + person);
        return undefined;
      }
      throw error;
    }
    // Stored before it is used: the old pair is already dead at the code host.
    await this.save(person, fresh, record.account);
    return fresh.accessToken;
  }

  /**
   * Frees the lock when it is still this holder's. Read then delete is two steps: the lock could lapse and pass to
   * another replica between them only if this refresh outlived LOCK_TTL_MS, longer than the code host's timeout.
   */
  private async release(lock: string, owner: string): Promise<void> {
    if ((await this.store.get<string>(lock)) === owner) await this.store.delete(lock);
  }
}
