// Project webhooks (beyond the spec: the service's Project webhooks API, v4): list, read, add, edit and delete a
// project's hooks, test one with a sample event, and the Pipeline Hook events they receive when a pipeline's status changes.
//
// Every route wants a maintainer of the project (or an administrator), as the service's docs say: 404 for a project
// the caller cannot see, 401 without a token, 403 below maintainer, 403 on an archived project for changes. The token
// is write-only. The sandbox allows at most HOOKS_PER_PROJECT hooks per project and only http(s) URLs; unlike the
// service it lets hooks reach the local network, since a sandbox and its receivers usually share a machine.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { messageError, paramError, validationError } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { optionalParams, param } from '../../core/params.js';
import { pathRecord, type Router, type SandboxRequest } from '../../core/router.js';
import { ACCESS, type Project } from '../../core/store.js';
import { pickFields } from '../../core/views.js';
import { onPipelineChange } from '../jobs/index.js';
import { HookDeliveries } from './delivery.js';
import { pipelineEvent, pipelineSnapshot, sampleEvent, TEST_TRIGGERS } from './payload.js';
import { EVENT_FLAGS, hooksOf, type EventFlag, type ProjectHook } from './state.js';

const HOOKS_PER_PROJECT = 20;
const URL_MAX = 2048;
const TOKEN_MAX = 255;

const flags = Object.fromEntries(Object.keys(EVENT_FLAGS).map((flag) => [flag, param.boolean().optional()])) as Record<
  EventFlag,
  z.ZodOptional<ReturnType<typeof param.boolean>>
>;

const editParams = z.object({
  ...optionalParams(param.string, 'url', 'token', 'name', 'description', 'push_events_branch_filter'),
  enable_ssl_verification: param.boolean().optional(),
  ...flags,
});
const addParams = editParams.extend({ url: z.string() });

function hookView(hook: ProjectHook) {
  return {
    ...pickFields(hook, ['id', 'url', 'name', 'description', 'project_id']),
    ...pickFields(hook, Object.keys(EVENT_FLAGS) as EventFlag[]),
    ...pickFields(hook, ['push_events_branch_filter', 'enable_ssl_verification']),
    repository_update_events: false,
    alert_status: 'executable',
    disabled_until: null,
    url_variables: [],
    created_at: hook.created_at.toISOString(),
  };
}

/** The service's refusal of a URL it will not call: 422 "Invalid url given". */
function checkUrl(url: string): void {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || url.length > URL_MAX)
    throw messageError(422, 'Invalid url given');
}

function checkToken(token: string | undefined): void {
  if (token !== undefined && token.length > TOKEN_MAX)
    throw validationError({ token: [`is too long (maximum is ${TOKEN_MAX} characters)`] }, 422);
}

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  const maintained = (req: SandboxRequest<unknown>, write = false): Project =>
    ctx.findProjectFor(req, req.pathParams.id, { minAccess: ACCESS.maintainer, write });

  function findHook(req: SandboxRequest<unknown>, project: Project): ProjectHook {
    return pathRecord(req, 'hook_id', hooksOf(store).hooks, (h) => h.project_id === project.id);
  }

  router.route('GET', '/projects/:id/hooks', { pagination: 'offset', auth: 'user' }, (req, reply) => {
    const project = maintained(req);
    const hooks = hooksOf(store).hooks.filter((h) => h.project_id === project.id);
    reply.json(paginate(req, reply, hooks).map(hookView));
  });

  router.route('GET', '/projects/:id/hooks/:hook_id', { auth: 'user' }, (req, reply) => {
    reply.json(hookView(findHook(req, maintained(req))));
  });

  router.route('POST', '/projects/:id/hooks', { params: addParams, auth: 'user' }, (req, reply) => {
    const project = maintained(req, true);
    const params = req.params;
    checkUrl(params.url);
    checkToken(params.token);
    const hooks = hooksOf(store).hooks;
    if (hooks.filter((h) => h.project_id === project.id).length >= HOOKS_PER_PROJECT) {
      throw validationError({ base: [`Maximum number of project hooks (${HOOKS_PER_PROJECT}) exceeded`] }, 422);
    }
    const hook: ProjectHook = {
      id: store.nextId('project_hook'),
      project_id: project.id,
      url: params.url,
      name: params.name ?? '',
      description: params.description ?? '',
      token: params.token || null,
      push_events_branch_filter: params.push_events_branch_filter ?? '',
      enable_ssl_verification: params.enable_ssl_verification ?? true,
      created_at: new Date(store.clock.now()),
      last_delivery: null,
      ...(Object.fromEntries(
        Object.entries(EVENT_FLAGS).map(([flag, fallback]) => [flag, params[flag as EventFlag] ?? fallback]),
      ) as Record<EventFlag, boolean>),
    };
    hooks.push(hook);
    reply.json(hookView(hook), 201);
  });

  router.route('PUT', '/projects/:id/hooks/:hook_id', { params: editParams, auth: 'user' }, (req, reply) => {
    const hook = findHook(req, maintained(req, true));
    const { url, token, name, description, push_events_branch_filter, enable_ssl_verification, ...changed } =
      req.params;
    if (url !== undefined) checkUrl(url);
    checkToken(token);
    // The vendor resets the secret token when the URL changes and no new token comes with it, so a token is never
    // sent to a receiver it was not given for; otherwise it is replaced only when one is sent (empty removes it).
    if (url !== undefined && url !== hook.url && token === undefined) hook.token = null;
    if (url !== undefined) hook.url = url;
    if (token !== undefined) hook.token = token || null;
    if (name !== undefined) hook.name = name;
    if (description !== undefined) hook.description = description;
    if (push_events_branch_filter !== undefined) hook.push_events_branch_filter = push_events_branch_filter;
    if (enable_ssl_verification !== undefined) hook.enable_ssl_verification = enable_ssl_verification;
    for (const [flag, value] of Object.entries(changed)) if (value !== undefined) hook[flag as EventFlag] = value;
    reply.json(hookView(hook));
  });

  router.route('DELETE', '/projects/:id/hooks/:hook_id', { auth: 'user' }, (req, reply) => {
    const hook = findHook(req, maintained(req, true));
    const hooks = hooksOf(store).hooks;
    hooks.splice(hooks.indexOf(hook), 1);
    reply.empty(204);
  });

  const deliveries = new HookDeliveries(
    () => store.baseUrl,
    () => store.clock.now(),
  );
  // The vendor's test of a hook: a sample event of the trigger's kind, sent to the hook's URL at once and its answer
  // awaited (within the delivery deadline). 201 {"message":"201 Created"} when the receiver answered 2xx; otherwise
  // 422 with why: the receiver's body (the service answers with it), or its status, or why it could not be reached.
  router.route('POST', '/projects/:id/hooks/:hook_id/test/:trigger', { auth: 'user' }, async (req, reply) => {
    const project = maintained(req);
    const hook = findHook(req, project);
    // Own keys only: 'constructor' is no trigger.
    const trigger = req.pathParams.trigger;
    const event = Object.hasOwn(TEST_TRIGGERS, trigger) ? TEST_TRIGGERS[trigger] : undefined;
    if (event === undefined) throw paramError('trigger does not have a valid value');
    const pipeline = project.pipelines.at(-1);
    if (req.pathParams.trigger === 'pipeline_events' && !pipeline)
      throw messageError(422, 'Ensure the project has CI pipelines.');
    const body =
      pipeline && req.pathParams.trigger === 'pipeline_events'
        ? await pipelineEvent(project, pipelineSnapshot(store, project, pipeline))
        : sampleEvent(store, project, req.pathParams.trigger);
    const sent = await deliveries.sendNow(hook, event, body);
    if (!sent.ok) throw messageError(422, sent.message);
    reply.json({ message: '201 Created' }, 201);
  });

  const stopListening = onPipelineChange(store, (project, pipeline) => {
    const listening = hooksOf(store).hooks.filter((h) => h.project_id === project.id && h.pipeline_events);
    if (listening.length === 0) return;
    const body = pipelineEvent(project, pipelineSnapshot(store, project, pipeline));
    for (const hook of listening) deliveries.enqueue(hook, 'Pipeline Hook', body);
  });
  store.onClose.push(() => {
    stopListening();
    deliveries.close();
  });
}
