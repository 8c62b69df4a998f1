// Releases: list (newest released_at first), read by tag, create (making the tag from `ref` when needed), update.
//
// Access: reading needs only a view of the project, but what comes from the repository (the commit, its paths,
// the source archives) only shows to those who may read the code (guests of a private project may not);
// create and update need push access (developer, 30) to a project that is not archived.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { HttpError, messageError, notFound, validationError } from '../../core/errors.js';
import { GitActionError, GitNotFoundError } from '../../git/errors.js';
import { checkRefName } from '../../git/repo.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import type { Router } from '../../core/router.js';
import { ACCESS, type Project, type Release } from '../../core/store.js';
import { gitCall } from '../repository/index.js';
import { releaseView } from './release-view.js';

const linkParam = z.strictObject({ name: z.string().min(1), url: z.string().min(1) });

const createParams = z.object({
  tag_name: z.string().min(1),
  description: z.string(),
  name: z.string().optional(),
  ref: z.string().min(1).optional(),
  milestones: z.array(z.string()).optional(),
  assets: z.strictObject({ links: z.array(linkParam).optional() }).optional(),
  released_at: param.datetime().optional(),
});

const updateParams = z.object({
  name: z.string().optional(),
  description: z.string().optional(),
  milestones: z.array(z.string()).optional(),
  released_at: param.datetime().optional(),
});

/** Milestone titles → ids; unknown titles are a 400 naming them. Empty titles (form `milestones[]=`) are dropped. */
function milestoneIds(project: Project, titles: string[]): number[] {
  const wanted = titles.filter((title) => title !== '');
  const missing = wanted.filter((title) => !project.milestones.some((m) => m.title === title));
  if (missing.length > 0) throw messageError(400, `Milestone(s) not found: ${missing.join(', ')}`);
  return [...new Set(wanted)].map((title) => project.milestones.find((m) => m.title === title)!.id);
}

function checkLinks(links: Array<{ name: string; url: string }>): void {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) =>
    (errors[field] ??= []).includes(message) || errors[field].push(message);
  links.forEach((link, index) => {
    let scheme: string | null = null;
    try {
      scheme = new URL(link.url).protocol;
    } catch {
      add('links.url', 'must be a valid URL');
    }
    if (scheme !== null && scheme !== 'http:' && scheme !== 'https:')
      add('links.url', 'is blocked: Only allowed schemes are http, https');
    if (links.findIndex((other) => other.name === link.name) !== index) add('links.name', 'has already been taken');
    if (links.findIndex((other) => other.url === link.url) !== index) add('links.url', 'has already been taken');
  });
  if (Object.keys(errors).length > 0) throw validationError(errors);
}

/** Makes sure the release's tag exists, creating it at `ref` when it does not. */
async function ensureTag(project: Project, tagName: string, ref: string | undefined): Promise<void> {
  if (await project.repo.tagExists(tagName)) return;
  if (ref === undefined) throw messageError(422, 'Ref is not specified');
  try {
    await project.repo.createTag(tagName, ref);
  } catch (error) {
    if (error instanceof GitNotFoundError) throw messageError(400, `Target ${ref} is invalid`);
    // Someone created the same tag meanwhile: that tag is the release's tag now.
    if (error instanceof GitActionError && error.kind === 'ref_exists') return;
    if (error instanceof GitActionError) throw messageError(400, error.message);
    throw error;
  }
}

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  const findRelease = (project: Project, tagName: string) => {
    const release = project.releases.find((r) => r.tag_name === tagName);
    if (!release) throw notFound('Release');
    return release;
  };

  // The spec's order (released_at, newest first) is the vendor's default; its order_by and sort choose another.
  const listParams = z.object({
    order_by: param.enum(['released_at', 'created_at']).optional(),
    sort: param.enum(['asc', 'desc']).optional(),
  });
  router.route('GET', '/projects/:id/releases', { params: listParams, pagination: 'offset' }, async (req, reply) => {
    const project = ctx.findProjectFor(req, req.pathParams.id);
    const [first, second] =
      req.params.order_by === 'created_at'
        ? (['created_at', 'released_at'] as const)
        : (['released_at', 'created_at'] as const);
    const direction = req.params.sort === 'asc' ? 1 : -1;
    const releases = [...project.releases].sort(
      (a, b) => direction * (a[first].getTime() - b[first].getTime() || a[second].getTime() - b[second].getTime()),
    );
    const page = paginate(req, reply, releases);
    const showCode = ctx.canReadCode(req.user, project);
    reply.json(await Promise.all(page.map((release) => releaseView(store, project, release, showCode))));
  });

  router.route('GET', '/projects/:id/releases/:tag_name', {}, async (req, reply) => {
    const project = ctx.findProjectFor(req, req.pathParams.id);
    const release = findRelease(project, req.pathParams.tag_name);
    reply.json(await releaseView(store, project, release, ctx.canReadCode(req.user, project)));
  });

  router.route('POST', '/projects/:id/releases', { auth: 'user', params: createParams }, async (req, reply) => {
    const user = ctx.requireUser(req);
    const project = ctx.findProjectFor(req, req.pathParams.id, { minAccess: ACCESS.developer, write: true });
    const { params } = req;
    // Before anything else: a release is only ever stored under a name its tag can have.
    await gitCall(async () => checkRefName(params.tag_name, 'tag_name'));
    const conflict = () => new HttpError(409, { message: 'Release already exists' });
    if (project.releases.some((r) => r.tag_name === params.tag_name)) throw conflict();
    const milestones = milestoneIds(project, params.milestones ?? []);
    const links = params.assets?.links ?? [];
    checkLinks(links);
    await ensureTag(project, params.tag_name, params.ref);
    // Checked again: another request may have made this release while the tag was being created.
    if (project.releases.some((r) => r.tag_name === params.tag_name)) throw conflict();
    const now = new Date();
    const release: Release = {
      id: store.nextId('release'),
      tag_name: params.tag_name,
      name: params.name ?? params.tag_name,
      description: params.description,
      created_at: now,
      released_at: params.released_at ?? now,
      author_id: user.id,
      milestone_ids: milestones,
      links: links.map((link) => ({ id: store.nextId('release_link'), name: link.name, url: link.url })),
    };
    // The answer is made before the release is stored, so that a failure making it stores nothing.
    const body = await releaseView(store, project, release, ctx.canReadCode(user, project));
    project.releases.push(release);
    project.last_activity_at = now;
    reply.json(body, 201);
  });

  router.route(
    'PUT',
    '/projects/:id/releases/:tag_name',
    { auth: 'user', params: updateParams },
    async (req, reply) => {
      const project = ctx.findProjectFor(req, req.pathParams.id, { minAccess: ACCESS.developer, write: true });
      const release = findRelease(project, req.pathParams.tag_name);
      const { params } = req;
      const milestones = params.milestones === undefined ? undefined : milestoneIds(project, params.milestones);
      const changes: Partial<Release> = {
        ...(params.name !== undefined && { name: params.name }),
        ...(params.description !== undefined && { description: params.description }),
        ...(params.released_at !== undefined && { released_at: params.released_at }),
        ...(milestones !== undefined && { milestone_ids: milestones }),
      };
      // As for create: the answer is made first, so that a failure making it changes nothing.
      const body = await releaseView(store, project, { ...release, ...changes }, ctx.canReadCode(req.user, project));
      Object.assign(release, changes);
      reply.json(body);
    },
  );
}
