// The groups (lists, one group, create, update, delete; the groups themselves are core) area of the sandbox: what it adds to the core (see ../../core/area.ts).
import type { SandboxArea } from '../../core/area.js';
import { registerAll } from '../../core/router.js';
import { registerGroupLists } from './group-list-routes.js';
import { register } from './routes.js';

export const area: SandboxArea = {
  name: 'groups',
  routes: registerAll(registerGroupLists, register),
};
