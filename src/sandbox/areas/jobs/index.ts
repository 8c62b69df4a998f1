// The jobs area of the sandbox (the service's Jobs API): each pipeline's jobs, their logs, retry, cancel, play and
// erase; and the environments and deployments its deploy jobs make (Environments and
// Deployments APIs). Jobs live in the area's slot (./state.ts) and point at core pipelines; see ../../core/area.ts.
import type { SandboxArea } from '../../core/area.js';
import { registerAll } from '../../core/router.js';
import { registerDeploymentRoutes } from './deployment-routes.js';
import { registerEnvironmentRoutes } from './environment-routes.js';
import { register } from './routes.js';
import { seedJobs } from './seed.js';

export {
  CI_CONFIG_PATH,
  announcePipelineChange,
  catchUp,
  createRunningPipeline,
  endIfIdle,
  onPipelineChange,
  prepareFacts,
} from './runner.js';
export {
  cancelPipelineJobs,
  forgetPipelineJobs,
  jobsOf,
  retryPipelineJobs,
  setJobLog,
  type Job,
  type JobStatus,
} from './state.js';

export const area: SandboxArea = {
  name: 'jobs',
  routes: registerAll(register, registerEnvironmentRoutes, registerDeploymentRoutes),
  seed: seedJobs,
};
