// The tags area of the sandbox: the Tags API on the core projects' git repositories (releases live on core projects).
import type { SandboxArea } from '../../core/area.js';
import { register } from './routes.js';

export const area: SandboxArea = {
  name: 'tags',
  routes: register,
};
