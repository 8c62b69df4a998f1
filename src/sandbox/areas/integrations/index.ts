// The project integrations area of the sandbox: what it adds to the core (see ../../core/area.ts).
import type { SandboxArea } from '../../core/area.js';
import { register } from './routes.js';
import { seedIntegrations } from './state.js';

export const area: SandboxArea = {
  name: 'integrations',
  routes: register,
  seed: (store, { epoch }) => seedIntegrations(store, epoch),
};
