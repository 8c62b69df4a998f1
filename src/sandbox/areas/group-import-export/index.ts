// The group export and import area of the sandbox: what it adds to the core (see ../../core/area.ts).
import type { SandboxArea } from '../../core/area.js';
import { register } from './routes.js';

export const area: SandboxArea = {
  name: 'group-import-export',
  routes: register,
};
