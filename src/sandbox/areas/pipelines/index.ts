// The pipelines (the pipeline records live on core projects) area of the sandbox: what it adds to the core (see
// ../../core/area.ts).
import type { SandboxArea } from '../../core/area.js';
import { registerAll } from '../../core/router.js';
import { registerPipelineWrites } from './pipeline-write-routes.js';
import { register } from './routes.js';

export const area: SandboxArea = {
  name: 'pipelines',
  routes: registerAll(register, registerPipelineWrites),
};
