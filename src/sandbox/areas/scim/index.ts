// The SCIM provisioning area of the sandbox: what it adds to the core (see ../../core/area.ts).
import type { SandboxArea } from '../../core/area.js';
import { registerAll } from '../../core/router.js';
import { registerScimReads } from './routes.js';
import { registerScimChanges } from './scim-change-routes.js';
import { seedScim } from './state.js';

/** Public to the users area (PUT /users/:id with group_id_for_saml): which groups have a SAML provider. */
export { samlProvidersOf } from './state.js';

export const area: SandboxArea = {
  name: 'scim',
  routes: registerAll(registerScimReads, registerScimChanges),
  seed: (store, { users }) => seedScim(store, users),
};
