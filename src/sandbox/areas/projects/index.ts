// The project lists, one project's read and its rename (the projects themselves are core) area of the sandbox: what it adds to the core (see ../../core/area.ts).
import type { SandboxArea } from '../../core/area.js';
import { register } from './routes.js';

export const area: SandboxArea = {
  name: 'projects',
  routes: register,
};
