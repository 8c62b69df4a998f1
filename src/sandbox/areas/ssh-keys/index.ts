// The SSH keys area of the sandbox: what it adds to the core (see ../../core/area.ts).
import type { SandboxArea } from '../../core/area.js';
import { register } from './routes.js';
import { seedSshKeys, sshKeysOf } from './state.js';

export const area: SandboxArea = {
  name: 'ssh-keys',
  routes: register,
  seed: (store, { users, epoch }) => seedSshKeys(store, users, epoch),
  forgetUser: (store, user) => {
    const keys = sshKeysOf(store);
    for (let i = keys.length - 1; i >= 0; i--) if (keys[i].user_id === user.id) keys.splice(i, 1);
  },
};
