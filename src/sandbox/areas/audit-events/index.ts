// The audit events (the log itself is core: ../../core/audit.ts) area of the sandbox: what it adds to the core (see ../../core/area.ts).
import type { SandboxArea } from '../../core/area.js';
import { register } from './routes.js';
import { seedAuditEvents } from './seed.js';

export const area: SandboxArea = {
  name: 'audit-events',
  routes: register,
  seed: (store, { epoch }) => seedAuditEvents(store, epoch),
};
