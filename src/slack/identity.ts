// Who a Slack user acts as on the service: their own linked token (sealed at rest), else the sandbox's demo
// maintainer when the sandbox is in use, else the shared read token for reads only, else a prompt to link.
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

export type Acting =
  | { ok: true; token: string; account?: ServiceAccount; source: 'linked' | 'sandbox' | 'shared' }
  | { ok: false; message: string };

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

interface IdentityOptions {
  store: StateStore;
  /** Undefined without FORGEOPS_SECRET: linking is refused rather than storing tokens in the clear. */
  sealer?: Sealer;
  /** The sandbox's demo maintainer token, when the embedded sandbox is the service. */
  sandboxToken?: () => Promise<string>;
  sharedReadToken?: string;
}

export class Identities {
  constructor(private readonly options: IdentityOptions) {}

  get canLink(): boolean {
    return this.options.sealer !== undefined;
  }

  async link(user: SlackUser, token: string, account: ServiceAccount): Promise<void> {
    if (!this.options.sealer) throw new Error('FORGEOPS_SECRET is not set: tokens are never stored unencrypted');
    const before = await this.options.store.get<LinkRecord>(`link:${userKey(user)}`);
    if (before) await this.forgetPerson(user, before.account);
    const record: LinkRecord = {
      sealed: this.options.sealer.seal(token, userKey(user)),
      account,
      linkedAt: new Date().toISOString(),
    };
    await this.options.store.set(`link:${userKey(user)}`, record);
    for (const key of personKeys(user.teamId, account)) await this.options.store.set(key, user.userId);
  }

  async unlink(user: SlackUser): Promise<boolean> {
    const record = await this.options.store.get<LinkRecord>(`link:${userKey(user)}`);
    if (record) await this.forgetPerson(user, record.account);
    return this.options.store.delete(`link:${userKey(user)}`);
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

  async linked(user: SlackUser): Promise<{ token: string; account: ServiceAccount } | undefined> {
    const record = await this.options.store.get<LinkRecord>(`link:${userKey(user)}`);
    if (!record || !this.options.sealer) return undefined;
    const token = this.options.sealer.open(record.sealed, userKey(user));
    // A record that no longer opens (FORGEOPS_SECRET changed) is as good as none: the user links again.
    return token === undefined ? undefined : { token, account: record.account };
  }

  /** The token a call of this effect runs with for this user, or why there is none. */
  async acting(user: SlackUser, effect: Effect): Promise<Acting> {
    const own = await this.linked(user);
    if (own) return { ok: true, token: own.token, account: own.account, source: 'linked' };
    if (this.options.sandboxToken) return { ok: true, token: await this.options.sandboxToken(), source: 'sandbox' };
    if (effect === 'read' && this.options.sharedReadToken)
      return { ok: true, token: this.options.sharedReadToken, source: 'shared' };
    return {
      ok: false,
      message:
        effect === 'read' || !this.options.sharedReadToken
          ? LINK_PROMPT
          : `Changes run only with your own account. ${LINK_PROMPT}`,
    };
  }

  /** What /forge whoami says. */
  async describe(user: SlackUser): Promise<string> {
    const own = await this.linked(user);
    if (own)
      return `Your commands run as *${own.account.username}*${own.account.name ? ` (${own.account.name})` : ''} on the service, with the token you linked. \`/forge logout\` forgets it.`;
    if (this.options.sandboxToken)
      return 'You have not linked an account: against the embedded sandbox, your commands run as its demo maintainer. `/forge login` links your own.';
    if (this.options.sharedReadToken)
      return `You have not linked an account: reads run with the workspace's shared read token, changes need your own. ${LINK_PROMPT}`;
    return `You have not linked an account. ${LINK_PROMPT}`;
  }
}
