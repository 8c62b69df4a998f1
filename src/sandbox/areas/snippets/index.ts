// The project snippets area of the sandbox: what it adds to the core (see ../../core/area.ts).
import type { SandboxArea } from '../../core/area.js';
import { register } from './routes.js';
import { seedSnippets } from './state.js';

export const area: SandboxArea = {
  name: 'snippets',
  routes: register,
  seed: (store, { users, epoch }) => seedSnippets(store, users, epoch),
};
