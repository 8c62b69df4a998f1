// The broadcast messages area of the sandbox: what it adds to the core (see ../../core/area.ts).
import type { SandboxArea } from '../../core/area.js';
import { register } from './routes.js';
import { seedBroadcastMessages } from './state.js';

export const area: SandboxArea = {
  name: 'broadcast-messages',
  routes: register,
  seed: (store, { epoch }) => seedBroadcastMessages(store, epoch),
};
