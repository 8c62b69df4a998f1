// Accounts beyond the demo tokens' own: passwords (kept as hashes, never shown), the demo identities, statuses and
// custom attributes, the extra users that make the user list's filters tell something apart, and removal.
import { createHash, randomBytes } from 'node:crypto';
import { ACCESS, type Group, type Store, type User } from '../../core/store.js';

export interface PasswordRecord {
  sha256: string;
  /** Set by an administrator: the user must choose a new one at next sign-in (the spec's rule for updates). */
  mustChange: boolean;
}

/** User id → password record; a reset e-mail or a random password leaves a hash nobody knows. */
export class PasswordBook {
  private readonly records = new Map<number, PasswordRecord>();

  set(user: User, password: string, mustChange: boolean): void {
    this.records.set(user.id, { sha256: createHash('sha256').update(password).digest('hex'), mustChange });
  }

  setRandom(user: User): void {
    this.set(user, randomBytes(24).toString('base64'), true);
  }

  get(user: User): PasswordRecord | undefined {
    return this.records.get(user.id);
  }

  forget(user: User): void {
    this.records.delete(user.id);
  }
}

/** Groups whose only owner is this user: a soft delete would leave them ownerless (409); a hard delete takes them along. */
export function groupsSolelyOwned(store: Store, user: User): Group[] {
  return store.groups.filter((group) => {
    const owners = [...group.members].filter(([, m]) => m.access_level === ACCESS.owner).map(([id]) => id);
    return owners.length === 1 && owners[0] === user.id;
  });
}

/**
 * Removes a user: account, tokens, keys, memberships. Their issues, comments and other contributions stay and show
 * no author, as the service shows them under its ghost user. A hard delete also removes the groups they solely own,
 * with the subgroups and projects inside.
 */
export function removeUser(store: Store, user: User, hard: boolean): void {
  if (hard) {
    const doomed = new Set(groupsSolelyOwned(store, user).flatMap((g) => [g, ...store.descendantGroups(g)]));
    removeWhere(store.projects, (p) => p.namespace.kind === 'group' && doomed.has(p.namespace.group));
    removeWhere(store.groups, (g) => doomed.has(g));
  }
  removeWhere(store.projects, (p) => p.namespace.kind === 'user' && p.namespace.user === user);
  for (const holder of [...store.groups, ...store.projects]) holder.members.delete(user.id);
  removeWhere(store.sshKeys, (k) => k.user_id === user.id);
  store.passwords.forget(user);
  removeWhere(store.users, (u) => u === user);
}

function removeWhere<T>(list: T[], doomed: (item: T) => boolean): void {
  for (let i = list.length - 1; i >= 0; i--) if (doomed(list[i])) list.splice(i, 1);
}

const DAY = 24 * 60 * 60 * 1000;

/** Runs after the accounts exist; the extra users come last so that no seeded group or project id moves. */
export function seedUsers(store: Store, users: Map<string, User>, epoch: number): void {
  const alice = users.get('alice')!;
  alice.identities.push({ provider: 'ldapmain', extern_uid: 'uid=alice,ou=people,dc=acme,dc=example' });
  alice.custom_attributes = { team: 'platform' };
  users.get('bob')!.custom_attributes = { team: 'payments' };
  users.get('bob')!.status = { emoji: 'coffee', message: 'On call until Friday <3' };
  users.get('carol')!.two_factor_enabled = true;
  for (const user of users.values()) store.passwords.set(user, `${user.username}-sandbox-password`, false);
  // A former contractor, blocked and external: the active, blocked and external filters each change the list.
  const frank = store.addUser({
    username: 'frank', name: 'Frank Olsen', email: 'frank@example.org', state: 'blocked', external: true,
    bio: 'Former contractor.', created_at: new Date(epoch - 500 * DAY), confirmed_at: new Date(epoch - 500 * DAY),
  });
  store.passwords.setRandom(frank);
}
