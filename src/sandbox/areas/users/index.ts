// The users area of the sandbox: the user routes (the accounts themselves are core), passwords and the demo
// extra accounts.
import type { SandboxArea } from '../../core/area.js';
import { register as registerUsers } from './routes.js';
import { passwordsOf, seedUsers } from './state.js';
import { register as registerUser } from './user-routes.js';

export const area: SandboxArea = {
  name: 'users',
  routes: (router, ctx) => {
    registerUser(router, ctx);
    registerUsers(router, ctx);
  },
  seed: (store, { users, epoch }) => seedUsers(store, users, epoch),
  forgetUser: (store, user) => passwordsOf(store).forget(user),
};
