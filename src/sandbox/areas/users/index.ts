// The users area of the sandbox: the user routes (the accounts themselves are core), passwords and the demo
// extra accounts. Other areas may check a password (the OAuth provider's sign-in page) through checkPassword.
import type { SandboxArea } from '../../core/area.js';
import type { Store, User } from '../../core/store.js';
import { registerAll } from '../../core/router.js';
import { registerUserReads } from './routes.js';
import { passwordsOf, seedUsers } from './state.js';
import { register as registerUser } from './user-routes.js';
import { registerUserWrites } from './user-write-routes.js';

export const area: SandboxArea = {
  name: 'users',
  routes: registerAll(registerUser, registerUserReads, registerUserWrites),
  seed: (store, { users, epoch }) => seedUsers(store, users, epoch),
  forgetUser: (store, user) => passwordsOf(store).forget(user),
};

/** Whether `password` signs `user` in: 'ok', 'wrong', or 'must_change' (right, but set by an administrator). */
export function checkPassword(store: Store, user: User, password: string): 'ok' | 'wrong' | 'must_change' {
  return passwordsOf(store).check(user, password);
}
