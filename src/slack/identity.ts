// Who a Slack user acts as on the service: the account they connected through the code host's sign-in (its tokens in
// the vault), else a token they pasted before Connect existed (sealed at rest), else the sandbox's demo maintainer
// when the sandbox is in use, else the shared read token for reads only, else a prompt to link.
import { ApiError } from '../http/errors.js';
import type { ApiTransport } from '../http/types.js';
import type { CodeHostAccount } from '../identity/code-host-oauth.js';
import { personTransport } from '../identity/person-client.js';
import type { TokenVault } from '../identity/token-vault.js';
import type { Effect } from '../operations/engine/define.js';
import type { Sealer } from './sealed.js';
import type { StateStore } from '../state/store.js';

/** A Slack user: team and user id (user ids are per workspace). */
export interface SlackUser {
  teamId: string;
  userId: string;
}

export const userKey = (user: SlackUser): string => `${user.teamId}:${user.userId}`;

interface ServiceAccount {
  id?: number;
  username: string;
  name?: string;
}

interface LinkRecord {
  sealed: string;
  account: ServiceAccount;
  linkedAt: string;
}

/** A Slack user bound to a person of the code host by a Connect sign-in: the tokens are the vault's, under `person`. */
interface ConnectRecord {
  person: string;
  account: CodeHostAccount;
  linkedAt: string;
}

export type Acting =
  | {
      ok: true;
      token: string;
      account?: ServiceAccount;
      source: 'linked' | 'sandbox' | 'shared';
      /** A Connect sign-in's person in the vault: its token is an OAuth access token, sent as a bearer. */
      person?: string;
    }
  /** `connect`: a Connect link is the answer (the bot offers one in place of the message). */
  | { ok: false; message: string; connect?: boolean };

/** What a Slack user is linked to, and how: a Connect sign-in or a pasted token. */
type Linked =
  | { token: string; account: ServiceAccount; via: 'token' }
  | { token: string; account: ServiceAccount; via: 'connect'; person: string }
  /** Connected once, but the code host no longer honours the grant (revoked, or unused too long). */
  | { gone: true; account: ServiceAccount };

const connectKey = (user: SlackUser): string => `slack-link:${userKey(user)}`;

const personKey = (teamId: string, name: string) => `linked-person:${teamId}:${encodeURIComponent(name)}`;
const personKeys = (teamId: string, account: ServiceAccount) =>
  [
    ...new Set(
      [account.username, account.name]
        .filter((n): n is string => typeof n === 'string' && n.trim() !== '' && n.length <= 255)
        .map((n) => n.trim().toLowerCase()),
    ),
  ].map((name) => personKey(teamId, name));

export const LINK_PROMPT =
  'Link your account on the service first: type `/forge login` and paste a personal access token.';
/** The prompt when Connect is on: `/forge login` answers with a link to the code host's sign-in. */
export const CONNECT_PROMPT = 'Connect your account on the service first: type `/forge login`.';

interface IdentityOptions {
  store: StateStore;
  /** Undefined without FORGEOPS_SECRET: linking is refused rather than storing tokens in the clear. */
  sealer?: Sealer;
  /** The sandbox's demo maintainer token, when the embedded sandbox is the service. */
  sandboxToken?: () => Promise<string>;
  sharedReadToken?: string;
  /**
   * Connect is on (an application at the code host and FORGEOPS_SECRET): people sign in through the code host, whose
   * tokens the vault keeps per person; unlinked people are offered a Connect link instead of the token prompt.
   */
  vault?: TokenVault;
}

export class Identities {
  constructor(private readonly options: IdentityOptions) {}

  get canLink(): boolean {
    return this.options.sealer !== undefined;
  }

  async link(user: SlackUser, token: string, account: ServiceAccount): Promise<void> {
    if (!this.options.sealer) throw new Error('FORGEOPS_SECRET is not set: tokens are never stored unencrypted');
    await this.forgetLinks(user);
    const record: LinkRecord = {
      sealed: this.options.sealer.seal(token, userKey(user)),
      account,
      linkedAt: new Date().toISOString(),
    };
    await this.options.store.set(`link:${userKey(user)}`, record);
    for (const key of personKeys(user.teamId, account)) await this.options.store.set(key, user.userId);
  }

  /** Whether people sign in through the code host (a Connect link) rather than paste tokens. */
  get connects(): boolean {
    return this.options.vault !== undefined;
  }

  /**
   * Binds a Slack user to the code host's person a Connect sign-in named (its tokens already in the vault); a token
   * pasted before, or another person connected before, is forgotten (that person's grant is not revoked: they may be
   * signed in from elsewhere too).
   */
  async bindPerson(user: SlackUser, person: string, account: CodeHostAccount): Promise<void> {
    await this.forgetLinks(user);
    const record: ConnectRecord = { person, account, linkedAt: new Date().toISOString() };
    await this.options.store.set(connectKey(user), record);
    for (const key of personKeys(user.teamId, account)) await this.options.store.set(key, user.userId);
  }

  /** Which code-host person a Slack user connected as, if they did. */
  async connectedPerson(user: SlackUser): Promise<{ person: string; account: CodeHostAccount } | undefined> {
    const record = await this.options.store.get<ConnectRecord>(connectKey(user));
    return record && { person: record.person, account: record.account };
  }

  /**
   * Forgets what a Slack user linked. A Connect sign-in is signed out at the code host too (its tokens revoked), so
   * a copy of them anywhere is dead. What was forgotten, if anything.
   */
  async unlink(user: SlackUser): Promise<{ via: 'connect' | 'token'; revoked?: boolean } | undefined> {
    const connected = await this.options.store.get<ConnectRecord>(connectKey(user));
    if (connected) {
      const signedOut = this.options.vault ? await this.options.vault.signOut(connected.person) : undefined;
      await this.forgetLinks(user);
      return { via: 'connect', revoked: signedOut?.revoked ?? false };
    }
    return (await this.forgetLinks(user)) ? { via: 'token' } : undefined;
  }

  /** Deletes both kinds of link of a Slack user and their names in the person index; whether there was one. */
  private async forgetLinks(user: SlackUser): Promise<boolean> {
    const token = await this.options.store.get<LinkRecord>(`link:${userKey(user)}`);
    if (token) await this.forgetPerson(user, token.account);
    const connected = await this.options.store.get<ConnectRecord>(connectKey(user));
    if (connected) await this.forgetPerson(user, connected.account);
    const deleted = await Promise.all([
      this.options.store.delete(`link:${userKey(user)}`),
      this.options.store.delete(connectKey(user)),
    ]);
    return deleted.some(Boolean);
  }

  /**
   * The Slack user (in `teamId`) who linked the service account of this username or display name: commits carry
   * the author's name, people's lists their username. One index entry per name of a link, so it is as bounded as
   * the links; a name two people linked is the later one's.
   */
  async slackUserOf(teamId: string, person: string): Promise<string | undefined> {
    const name = person.trim().toLowerCase();
    if (!name || name.length > 255) return undefined;
    return this.options.store.get<string>(personKey(teamId, name));
  }

  private async forgetPerson(user: SlackUser, account: ServiceAccount): Promise<void> {
    for (const key of personKeys(user.teamId, account)) {
      if ((await this.options.store.get<string>(key)) === user.userId) await this.options.store.delete(key);
    }
  }

  /**
   * What this Slack user is linked to. A Connect link's token comes from the vault, refreshed when near expiry (one
   * replica at a time); a refresh the code host cannot answer now rejects (the caller says so, nothing runs).
   */
  async linked(user: SlackUser): Promise<Linked | undefined> {
    const connected = await this.options.store.get<ConnectRecord>(connectKey(user));
    if (connected && this.options.vault) {
      const token = await this.options.vault.accessToken(connected.person);
      return token === undefined
        ? { gone: true, account: connected.account }
        : { token, account: connected.account, via: 'connect', person: connected.person };
    }
    const record = await this.options.store.get<LinkRecord>(`link:${userKey(user)}`);
    if (!record || !this.options.sealer) return undefined;
    const token = this.options.sealer.open(record.sealed, userKey(user));
    // A record that no longer opens (FORGEOPS_SECRET changed) is as good as none: the user links again.
    return token === undefined ? undefined : { token, account: record.account, via: 'token' };
  }

  /** The token a call of this effect runs with for this user, or why there is none. */
  async acting(user: SlackUser, effect: Effect): Promise<Acting> {
    let own: Linked | undefined;
    try {
      own = await this.linked(user);
    } catch (error) {
      return {
        ok: false,
        message: `Your sign-in at the code host could not be renewed just now (${(error as Error).message}); nothing was run. Try again in a moment.`,
      };
    }
    if (own && 'gone' in own)
      return {
        ok: false,
        connect: true,
        message: `Your sign-in at the code host as *${own.account.username}* has ended (revoked or expired). ${CONNECT_PROMPT}`,
      };
    if (own)
      return {
        ok: true,
        token: own.token,
        account: own.account,
        source: 'linked',
        ...(own.via === 'connect' ? { person: own.person } : {}),
      };
    if (this.options.sandboxToken) return { ok: true, token: await this.options.sandboxToken(), source: 'sandbox' };
    if (effect === 'read' && this.options.sharedReadToken)
      return { ok: true, token: this.options.sharedReadToken, source: 'shared' };
    const prompt = this.connects ? CONNECT_PROMPT : LINK_PROMPT;
    return {
      ok: false,
      ...(this.connects ? { connect: true } : {}),
      message:
        effect === 'read' || !this.options.sharedReadToken
          ? prompt
          : `Changes run only with your own account. ${prompt}`,
    };
  }

  /**
   * The client `who`'s calls go through. A Connect sign-in's token is the code host's OAuth access token: the code
   * host takes it only as `Authorization: Bearer` (never as PRIVATE-TOKEN, how a pasted token goes), and a 401 gets
   * it refreshed once from the vault. `onSignedOut`: a 401 after which the vault holds no sign-in of the person any
   * more (the code host refused its refresh: revoked there, or unused too long).
   */
  clientFor(client: ApiTransport, who: Extract<Acting, { ok: true }>, onSignedOut?: () => void): ApiTransport {
    const { vault } = this.options;
    const { person } = who;
    if (!person || !vault) return client;
    const signedIn = personTransport(client, vault, person);
    return {
      async request(req) {
        try {
          return await signedIn.request(req);
        } catch (error) {
          if (onSignedOut && error instanceof ApiError && error.status === 401 && !(await vault.account(person)))
            onSignedOut();
          throw error;
        }
      },
    };
  }

  /** What /forge whoami says. */
  async describe(user: SlackUser): Promise<string> {
    let own: Linked | undefined;
    try {
      own = await this.linked(user);
    } catch (error) {
      const connected = await this.connectedPerson(user);
      return `You connected as *${connected?.account.username ?? 'an account'}*, but the code host could not renew the sign-in just now: ${(error as Error).message}.`;
    }
    if (own && 'gone' in own)
      return `You connected as *${own.account.username}*, but that sign-in has ended at the code host. ${CONNECT_PROMPT}`;
    if (own)
      return `Your commands run as *${own.account.username}*${own.account.name ? ` (${own.account.name})` : ''} on the service, ${own.via === 'connect' ? 'signed in through the code host (Connect); `/forge logout` signs you out there and here' : 'with the token you linked; `/forge logout` forgets it'}.`;
    if (this.options.sandboxToken)
      return 'You have not linked an account: against the embedded sandbox, your commands run as its demo maintainer. `/forge login` links your own.';
    const prompt = this.connects ? CONNECT_PROMPT : LINK_PROMPT;
    if (this.options.sharedReadToken)
      return `You have not linked an account: reads run with the workspace's shared read token, changes need your own. ${prompt}`;
    return `You have not linked an account. ${prompt}`;
  }
}
