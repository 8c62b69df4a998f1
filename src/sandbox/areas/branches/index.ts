// The branches area of the sandbox: the Branches and Protected branches APIs on the core projects' git
// repositories, with each project's protections in the area's state.
import type { SandboxArea } from '../../core/area.js';
import { register } from './routes.js';

export const area: SandboxArea = {
  name: 'branches',
  routes: register,
};
