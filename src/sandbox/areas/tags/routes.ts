// Tags routes (the service's REST API v4): tags read from the project's git repository, with the release
// made on each, if any. Reading follows the code; creating and deleting take developer access (push).
import { z } from 'zod';
import { codeListRoute, readableProject, writableProject, type SandboxContext } from '../../core/context.js';
import { messageError, notFound } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { matchesSearch, param } from '../../core/params.js';
import type { Router } from '../../core/router.js';
import { projectWebUrl } from '../../core/views.js';
import { ACCESS, type Project } from '../../core/store.js';
import { GitActionError, GitNotFoundError } from '../../git/errors.js';
import { refNameProblem } from '../../git/repo.js';
import { deleteTag, listTags, type TagRef } from './git.js';

const listParams = z.object({
  search: z.string().optional(),
  order_by: param.enum(['name', 'updated', 'version']).optional(),
  sort: param.enum(['asc', 'desc']).optional(),
});
const createParams = z.object({ tag_name: z.string(), ref: z.string(), message: z.string().optional() });

/** Compares version-like names: numeric runs as numbers, the rest as text. */
function compareVersions(a: string, b: string): number {
  const split = (s: string) =>
    s
      .replace(/^v/i, '')
      .split(/(\d+)/)
      .filter((part) => part !== '');
  const [pa, pb] = [split(a), split(b)];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const [x, y] = [pa[i], pb[i]];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const [nx, ny] = [/^\d+$/.test(x), /^\d+$/.test(y)];
    if (nx && ny && Number(x) !== Number(y)) return Number(x) - Number(y);
    if (!(nx && ny) && x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

async function tagViews(
  ctx: SandboxContext,
  project: Project,
  tags: TagRef[],
): Promise<Array<Record<string, unknown>>> {
  const commits = await project.repo.getCommits(tags.map((tag) => tag.commit));
  const webUrl = projectWebUrl(ctx.store, project);
  return tags.map((tag, index) => {
    const release = project.releases.find((r) => r.tag_name === tag.name);
    const commit = commits[index];
    return {
      name: tag.name,
      message: tag.message,
      target: tag.target,
      commit: {
        ...commit,
        parent_ids: [...commit.parent_ids],
        trailers: {},
        extended_trailers: {},
        web_url: `${webUrl}/-/commit/${commit.id}`,
      },
      release: release ? { tag_name: release.tag_name, description: release.description } : null,
      protected: false,
      created_at: tag.taggedAt === null ? null : new Date(tag.taggedAt * 1000).toISOString(),
    };
  });
}

async function findTag(project: Project, name: string): Promise<TagRef> {
  const tag = refNameProblem(name) === null ? (await listTags(project.repo)).find((t) => t.name === name) : undefined;
  if (!tag) throw notFound('Tag');
  return tag;
}

export function register(router: Router, ctx: SandboxContext): void {
  codeListRoute(router, ctx, '/projects/:id/repository/tags', listParams, async (project, req, reply) => {
    const tags = (await listTags(project.repo)).filter((tag) => matchesSearch(tag.name, req.params.search));
    const orderBy = req.params.order_by ?? 'updated';
    const views = await tagViews(ctx, project, tags);
    const dateOf = (view: Record<string, unknown>) =>
      Date.parse((view.commit as { committed_date: string }).committed_date);
    const compare = (a: Record<string, unknown>, b: Record<string, unknown>): number => {
      const [na, nb] = [a.name as string, b.name as string];
      if (orderBy === 'version') return compareVersions(na, nb);
      if (orderBy === 'updated') return dateOf(a) - dateOf(b) || (na < nb ? -1 : na > nb ? 1 : 0);
      return na < nb ? -1 : na > nb ? 1 : 0;
    };
    views.sort((a, b) => (req.params.sort === 'asc' ? compare(a, b) : compare(b, a)));
    reply.json(paginate(req, reply, views));
  });

  router.route('GET', '/projects/:id/repository/tags/:tag_name', {}, async (req, reply) => {
    const project = readableProject(ctx, req);
    const tag = await findTag(project, req.pathParams.tag_name);
    const [view] = await tagViews(ctx, project, [tag]);
    reply.json(view);
  });

  router.route('POST', '/projects/:id/repository/tags', { auth: 'user', params: createParams }, async (req, reply) => {
    const user = ctx.requireUser(req);
    const project = writableProject(ctx, req, ACCESS.developer);
    const { tag_name, ref, message } = req.params;
    if (refNameProblem(tag_name) !== null) throw messageError(400, 'Tag name invalid');
    try {
      await project.repo.createTag(tag_name, ref, message === '' ? undefined : message, {
        name: user.name,
        email: user.email,
      });
    } catch (error) {
      if (error instanceof GitActionError || error instanceof GitNotFoundError) throw messageError(400, error.message);
      throw error;
    }
    ctx.log(`tag ${tag_name} created in ${project.full_path}`);
    const [view] = await tagViews(ctx, project, [await findTag(project, tag_name)]);
    reply.json(view, 201);
  });

  router.route('DELETE', '/projects/:id/repository/tags/:tag_name', { auth: 'user' }, async (req, reply) => {
    // As the service: the tag is looked up first (404), then the caller's push access checked (a developer's, the
    // sandbox having no protected tags).
    const tag = await findTag(readableProject(ctx, req), req.pathParams.tag_name);
    const project = writableProject(ctx, req, ACCESS.developer);
    await deleteTag(project.repo, tag.name, tag.target);
    // The service deletes a tag's release with it.
    const index = project.releases.findIndex((r) => r.tag_name === tag.name);
    if (index !== -1) project.releases.splice(index, 1);
    ctx.log(`tag ${tag.name} deleted from ${project.full_path}`);
    reply.empty(204);
  });
}
