// Accounts beyond the demo tokens' own: passwords (kept as hashes, never shown), the demo identities, statuses and
// custom attributes, and the extra users that make the user list's filters tell something apart.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Store, User } from '../../core/store.js';
import { areaState } from '../../core/area.js';
import { demoPassword } from '../../core/demo-accounts.js';

interface PasswordRecord {
  sha256: string;
  /** Set by an administrator: the user must choose a new one at next sign-in (the spec's rule for updates). */
  mustChange: boolean;
}

/** User id → password record; a reset e-mail or a random password leaves a hash nobody knows. */
class PasswordBook {
  private readonly records = new Map<number, PasswordRecord>();

  set(user: User, password: string, mustChange: boolean): void {
    this.records.set(user.id, { sha256: sha256(password), mustChange });
  }

  /**
   * Signing in with a password: 'ok', 'wrong' (also for a user without one), or 'must_change' for the right password
   * set by an administrator, which the service makes its owner replace before anything else.
   */
  check(user: User, password: string): 'ok' | 'wrong' | 'must_change' {
    const record = this.records.get(user.id);
    const given = Buffer.from(sha256(password), 'hex');
    if (!record || !timingSafeEqual(given, Buffer.from(record.sha256, 'hex'))) return 'wrong';
    return record.mustChange ? 'must_change' : 'ok';
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

const DAY = 24 * 60 * 60 * 1000;

/** Runs after the accounts exist; the extra users come last so that no seeded group or project id moves. */
export function seedUsers(store: Store, users: Map<string, User>, epoch: number): void {
  const alice = users.get('alice')!;
  alice.identities.push({ provider: 'ldapmain', extern_uid: 'uid=alice,ou=people,dc=acme,dc=example' });
  alice.custom_attributes = { team: 'platform' };
  users.get('bob')!.custom_attributes = { team: 'payments' };
  users.get('bob')!.status = { emoji: 'coffee', message: 'On call until Friday <3' };
  users.get('carol')!.two_factor_enabled = true;
  for (const user of users.values()) passwordsOf(store).set(user, demoPassword(user.username), false);
  // A former contractor, blocked and external: the active, blocked and external filters each change the list.
  const frank = store.addUser({
    username: 'frank',
    name: 'Frank Olsen',
    email: 'frank@example.org',
    state: 'blocked',
    external: true,
    bio: 'Former contractor.',
    created_at: new Date(epoch - 500 * DAY),
    confirmed_at: new Date(epoch - 500 * DAY),
  });
  passwordsOf(store).setRandom(frank);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Users' password hashes. */
export const passwordsOf = areaState('passwords', () => new PasswordBook());
