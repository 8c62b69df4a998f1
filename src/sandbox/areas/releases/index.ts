// The releases (the release records live on core projects) area of the sandbox: what it adds to the core (see ../../core/area.ts).
import type { SandboxArea } from '../../core/area.js';
import { register } from './routes.js';

export const area: SandboxArea = {
  name: 'releases',
  routes: register,
};
