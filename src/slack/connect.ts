// Slack's Connect links: a one-time link a Slack user opens in their browser to sign in at the code host, which binds
// their team and user to the account they signed in as and runs the command that was waiting. Everything lives in
// the state store (a link made on one replica is opened on another; the code host may send the browser back to a
// third), and every entry is single-use, expires, and is capped: strangers in a workspace can make these.
import { randomBytes } from 'node:crypto';
import {
  type CodeHostAccount,
  type CodeHostOAuth,
  CodeHostOAuthError,
  type CodeHostTokens,
} from '../identity/code-host-oauth.js';
import { personKey } from '../identity/token-vault.js';
import type { Logger } from '../log.js';
import type { StateStore } from '../state/store.js';
import { type Identities, type SlackUser, userKey } from './identity.js';

/** Where a Connect link points: `<public URL>/connect/<id>`. */
export const CONNECT_PATH = '/connect/';

/** A link lives this long unopened; the Slack message says so. */
export const LINK_TTL_MS = 10 * 60_000;
/** From "Continue" to the code host's answer: sign-in and consent take a person a few minutes at most. */
export const SIGN_IN_TTL_MS = 10 * 60_000;
/** Links a person may have waiting at once: a new one replaces their oldest. */
export const MAX_LINKS_PER_USER = 5;
/** Links and sign-ins waiting over everyone: a flood of /forge login cannot fill the store. */
export const MAX_LINKS = 1_000;
export const MAX_SIGN_INS = 1_000;
/** The longest command kept to run after the sign-in (Slack's own limit on a command's text is 4,000). */
const MAX_COMMAND_CHARS = 4_000;

const LINK_PREFIX = 'slack-connect:link:';
const USER_PREFIX = 'slack-connect:user:';
const STATE_PREFIX = 'slack-connect:state:';
/** 128 bits or more of base64url: what a link id and the code host's state look like here. */
const LINK_ID = /^[A-Za-z0-9_-]{22,64}$/;
const STATE = /^[A-Za-z0-9_-]{16,128}$/;

/** Who asked, where, and what to run once they are signed in. */
export interface ConnectOrigin {
  user: SlackUser;
  /** The Slack user name, shown on the page so the person sees whose Slack account they bind. */
  userName?: string;
  channelId: string;
  responseUrl?: string;
  /** Exactly the text of the /forge command that was refused for want of an account; none for /forge login. */
  command?: string;
}

interface LinkRecord extends ConnectOrigin {
  createdAt: number;
}

/** A sign-in under way at the code host, kept under its state until the browser comes back. */
interface PendingSignIn extends ConnectOrigin {
  codeVerifier: string;
  linkId: string;
}

/** Continue pressed: where the browser goes, or why not (`busy`: the link was not spent and works later). */
export type Begun = { ok: true; redirect: URL } | { ok: false; reason: string; busy?: true };

export type Offer = { ok: true; url: string; expiresInMinutes: number } | { ok: false; reason: string };

/** What the Connect pages show: a link still waiting (and for whom), or why not. */
export type LinkView = { ok: true; userName?: string; user: SlackUser } | { ok: false };

/** The end of a sign-in, for the page the browser lands on and for the person in Slack. */
export type Finished =
  | { ok: true; origin: ConnectOrigin; account: CodeHostAccount }
  | { ok: false; origin: ConnectOrigin; reason: string };

export interface SlackConnectOptions {
  store: StateStore;
  identities: Identities;
  /** forgeops's client at the code host, made once forgeops knows its public address. */
  oauth: () => CodeHostOAuth;
  /** The vault the sign-in's tokens go to (the same one `identities` reads). */
  vault: { save(person: string, tokens: CodeHostTokens, account: CodeHostAccount): Promise<void> };
  /** forgeops's address as browsers reach it, without a trailing slash. */
  publicUrl: () => string;
  log: Logger;
}

export class SlackConnect {
  constructor(private readonly o: SlackConnectOptions) {}

  /** The code host's name as people know it (its host name), for buttons and pages. */
  get codeHostName(): string {
    return new URL(this.o.oauth().application.url).host;
  }

  /** The code host's origin, which the Connect page's form may redirect to. */
  get codeHostOrigin(): string {
    return new URL(this.o.oauth().application.url).origin;
  }

  /** forgeops's public origin: the Connect page's form is sent from it. */
  get publicOrigin(): string {
    return new URL(this.o.publicUrl()).origin;
  }

  /** A new one-time link for this person, or why none can be made now. */
  async offer(origin: ConnectOrigin): Promise<Offer> {
    const { store } = this.o;
    const mine = `${USER_PREFIX}${userKey(origin.user)}:`;
    // A person at their cap gets a new link in place of their oldest: the earlier links were ephemeral messages,
    // gone from Slack once the client reloads, so refusing would leave them no link to open for ten minutes.
    const waiting = await store.keys(mine);
    if (waiting.length >= MAX_LINKS_PER_USER) await this.dropOldest(waiting, waiting.length - MAX_LINKS_PER_USER + 1);
    else if ((await store.count(LINK_PREFIX)) >= MAX_LINKS)
      return { ok: false, reason: 'Too many people are connecting right now; try again in a few minutes.' };
    const id = randomBytes(24).toString('base64url');
    const command = origin.command?.trim();
    const record: LinkRecord = {
      user: origin.user,
      ...(origin.userName ? { userName: origin.userName } : {}),
      channelId: origin.channelId,
      ...(origin.responseUrl ? { responseUrl: origin.responseUrl } : {}),
      ...(command && command.length <= MAX_COMMAND_CHARS ? { command } : {}),
      createdAt: Date.now(),
    };
    await store.set(`${LINK_PREFIX}${id}`, record, { ttlMs: LINK_TTL_MS });
    await store.set(`${mine}${id}`, record.createdAt, { ttlMs: LINK_TTL_MS });
    return { ok: true, url: `${this.o.publicUrl()}${CONNECT_PATH}${id}`, expiresInMinutes: LINK_TTL_MS / 60_000 };
  }

  /** Deletes the `count` oldest of a person's waiting links (their index keys, each holding when it was made). */
  private async dropOldest(keys: string[], count: number): Promise<void> {
    const { store } = this.o;
    const made = await Promise.all(keys.map(async (key) => ({ key, at: (await store.get<number>(key)) ?? 0 })));
    made.sort((a, b) => a.at - b.at);
    for (const { key } of made.slice(0, count)) {
      await store.delete(`${LINK_PREFIX}${key.slice(key.lastIndexOf(':') + 1)}`);
      await store.delete(key);
    }
  }

  /** A link as its page shows it, without using it (a previewer's GET must not spend it). */
  async view(id: string): Promise<LinkView> {
    if (!LINK_ID.test(id)) return { ok: false };
    const link = await this.o.store.get<LinkRecord>(`${LINK_PREFIX}${id}`);
    return link ? { ok: true, user: link.user, ...(link.userName ? { userName: link.userName } : {}) } : { ok: false };
  }

  /**
   * Spends a link (of two browsers only one gets it) and starts the sign-in: the code host's address to send the
   * browser to, the PKCE verifier and the Slack origin kept under the state until it comes back.
   */
  async begin(id: string): Promise<Begun> {
    const { store } = this.o;
    const used = { ok: false as const, reason: 'This link was used or has expired; run /forge login in Slack again.' };
    if (!LINK_ID.test(id)) return used;
    // Checked before the link is spent, so a refusal here leaves it to open again in a minute.
    if ((await store.count(STATE_PREFIX)) >= MAX_SIGN_INS)
      return {
        ok: false,
        busy: true,
        reason: 'Too many sign-ins are under way right now; open the link again in a few minutes.',
      };
    const link = await store.take<LinkRecord>(`${LINK_PREFIX}${id}`);
    if (!link) return used;
    await store.delete(`${USER_PREFIX}${userKey(link.user)}:${id}`);
    const request = await this.o.oauth().authorizationRequest();
    const { createdAt: _, ...origin } = link;
    const pending: PendingSignIn = { ...origin, codeVerifier: request.codeVerifier, linkId: id };
    await store.set(`${STATE_PREFIX}${request.state}`, pending, { ttlMs: SIGN_IN_TTL_MS });
    this.o.log.info(`slack: ${userKey(link.user)} opened a Connect link; sent to the code host to sign in`);
    return { ok: true, redirect: request.url };
  }

  /**
   * The code host sent the browser back. Undefined when its state is no Slack sign-in waiting here (another front
   * end's, forged, replayed or expired): nothing is bound then. Otherwise the pending sign-in is taken (once), the
   * code traded for tokens with its PKCE verifier, the account read, the tokens kept in the vault under that person
   * and the Slack user of the link (never anyone named by the request) bound to them.
   */
  async finish(callback: URL): Promise<Finished | undefined> {
    const state = callback.searchParams.get('state') ?? '';
    if (!STATE.test(state)) return undefined;
    const pending = await this.o.store.take<PendingSignIn>(`${STATE_PREFIX}${state}`);
    if (!pending) return undefined;
    const { codeVerifier, linkId: _, ...origin } = pending;
    const oauth = this.o.oauth();
    let account: CodeHostAccount;
    try {
      const signedIn = await oauth.signIn(callback, { state, codeVerifier });
      account = signedIn.account;
      await this.o.vault.save(personKey(account), signedIn.tokens, account);
    } catch (error) {
      const reason =
        error instanceof CodeHostOAuthError && error.error === 'access_denied'
          ? 'You did not allow forgeops at the code host (access_denied); nothing was linked.'
          : `The sign-in at the code host did not complete: ${(error as Error).message}. Nothing was linked; run /forge login to try again.`;
      this.o.log.warn(`slack: a Connect sign-in of ${userKey(origin.user)} failed: ${(error as Error).message}`);
      return { ok: false, origin, reason };
    }
    await this.o.identities.bindPerson(origin.user, personKey(account), account);
    this.o.log.info(`slack: ${userKey(origin.user)} connected the code host account ${account.username}`);
    return { ok: true, origin, account };
  }
}
