// The repository area of the sandbox: browsing (tree, blobs, archive, compare, …), files and commits, on the
// core projects' git repositories.
import type { SandboxArea } from '../../core/area.js';
import { registerAll } from '../../core/router.js';
import { register as registerCommits } from './commits-routes.js';
import { register as registerFiles } from './files-routes.js';
import { register as registerBrowsing } from './routes.js';

/** Public to the releases area (creating a tag): runs a git write and answers its failures as the service does. */
export { gitCall } from './shared.js';

export const area: SandboxArea = {
  name: 'repository',
  routes: registerAll(registerFiles, registerBrowsing, registerCommits),
};
