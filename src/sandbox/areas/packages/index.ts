// The packages area of the sandbox: what it adds to the core (see ../../core/area.ts).
import type { SandboxArea } from '../../core/area.js';
import { register } from './routes.js';
import { seedPackages } from './state.js';

export const area: SandboxArea = {
  name: 'packages',
  routes: register,
  seed: (store, { epoch }) => seedPackages(store, epoch),
};
