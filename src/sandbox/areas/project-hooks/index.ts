// The project webhooks area of the sandbox (the service's Project webhooks API): a project's hooks, and the pipeline
// events the sandbox sends them as its runner moves pipelines.
import type { SandboxArea } from '../../core/area.js';
import { register } from './routes.js';

export const area: SandboxArea = {
  name: 'project-hooks',
  routes: register,
};
