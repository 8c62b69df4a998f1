// Environments (the service's Environments API, v4): list and read them, stop one. Their records come from deploy jobs
// (./deployments.ts), and they are read as deployments are (readProject, ./deployment-routes.ts).
//
// Access, as the service's permission table has it:
//   list, read                   who may read the project's code (reporters and up on a private project)
//   stop an environment          developer; a protected environment (production) only maintainers
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, paramError } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import { pathRecord, type Router, type SandboxRequest, signedInList } from '../../core/router.js';
import { ACCESS, type Project } from '../../core/store.js';
import { ENVIRONMENT_STATES, deploymentsOf, syncDeployments, type Environment } from './deployments.js';
import { environmentView } from './deployment-view.js';
import { readProject } from './deployment-routes.js';

const environmentListParams = z.object({
  name: z.string().optional(),
  search: z.string().optional(),
  states: param.enum(ENVIRONMENT_STATES).optional(),
});

function findEnvironment(ctx: SandboxContext, project: Project, req: SandboxRequest<unknown>): Environment {
  return pathRecord(req, 'environment_id', deploymentsOf(ctx.store).environments, (e) => e.project_id === project.id);
}

/** Environments: list, read, stop. */
export function registerEnvironmentRoutes(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  router.route('GET', '/projects/:id/environments', signedInList(environmentListParams), async (req, reply) => {
    const project = readProject(ctx, req);
    const { name, search, states } = req.params;
    if (name !== undefined && search !== undefined) throw paramError('name, search are mutually exclusive');
    if (search !== undefined && search.length < 3) throw paramError('search must be at least 3 characters');
    const environments = deploymentsOf(store).environments.filter(
      (e) =>
        e.project_id === project.id &&
        (name === undefined || e.name === name) &&
        (search === undefined || e.name.toLowerCase().includes(search.toLowerCase())) &&
        (states === undefined || e.state === states),
    );
    const page = paginate(req, reply, environments);
    reply.json(await Promise.all(page.map((e) => environmentView(store, project, e, false))));
  });

  router.route('GET', '/projects/:id/environments/:environment_id', { auth: 'user' }, async (req, reply) => {
    const project = readProject(ctx, req);
    reply.json(await environmentView(store, project, findEnvironment(ctx, project, req), true));
  });

  router.route(
    'POST',
    '/projects/:id/environments/:environment_id/stop',
    { params: z.object({ force: param.boolean().optional() }), auth: 'user' },
    async (req, reply) => {
      const user = ctx.requireUser(req);
      const project = ctx.findProjectFor(req, req.pathParams.id, { minAccess: ACCESS.developer, write: true });
      syncDeployments(store);
      const environment = findEnvironment(ctx, project, req);
      // A protected environment is stopped only by who may deploy to it.
      if (environment.required_approvals > 0 && ctx.projectAccess(user, project) < ACCESS.maintainer) throw forbidden();
      // No deploy job here has an on_stop action to run, so the environment stops at once (force or not).
      if (environment.state !== 'stopped') {
        environment.state = 'stopped';
        environment.updated_at = new Date(store.clock.now());
      }
      reply.json(await environmentView(store, project, environment, false), 200);
    },
  );
}
