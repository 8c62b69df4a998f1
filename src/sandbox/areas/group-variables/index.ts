// The group CI/CD variables area of the sandbox: what it adds to the core (see ../../core/area.ts).
import type { SandboxArea } from '../../core/area.js';
import { register } from './routes.js';
import { seedGroupVariables } from './state.js';

export const area: SandboxArea = {
  name: 'group-variables',
  routes: register,
  seed: (store) => seedGroupVariables(store),
};
