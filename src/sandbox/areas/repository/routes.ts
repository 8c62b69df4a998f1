// Repository browsing routes: tree, blobs, archive, compare, contributors, merge base (the helpers the repository
// routes share are ./shared.ts).
import { z } from 'zod';
import { codeListRoute, readableProject, type SandboxContext } from '../../core/context.js';
import { messageError, notFound, paramError } from '../../core/errors.js';
import { ARCHIVE_FORMATS, createArchive, isArchiveFormat } from '../../git/archive.js';
import { compareRefs } from '../../git/diff.js';
import { listTree, readBlob } from '../../git/files.js';
import { contributors, mergeBase } from '../../git/history.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import type { Router } from '../../core/router.js';
import type { Project } from '../../core/store.js';
import { commitView, dispositionFileName, gitCall, sendRaw } from './shared.js';

/** A ref given by the caller, or the project's default branch. */
function refOrDefault(project: Project, ref: string | undefined): string {
  return ref === undefined || ref === '' ? project.default_branch : ref;
}

const treeParams = z.object({
  path: z.string().optional(),
  ref: z.string().optional(),
  recursive: param.boolean().optional(),
});

const compareParams = z.object({
  from: z.string().min(1),
  to: z.string().min(1),
  straight: param.boolean().optional(),
});

const contributorParams = z.object({
  order_by: param.enum(['name', 'email', 'commits']).optional(),
  sort: param.enum(['asc', 'desc']).optional(),
});

const archiveParams = z.object({ sha: z.string().min(1).optional(), path: z.string().optional() });

const mergeBaseParams = z.object({ refs: param.array(z.string().min(1)) });

export function register(router: Router, ctx: SandboxContext): void {
  codeListRoute(router, ctx, '/projects/:id/repository/tree', treeParams, async (project, req, reply) => {
    const ref = refOrDefault(project, req.params.ref);
    const entries = await gitCall(() =>
      listTree(project.repo, ref, req.params.path ?? '', req.params.recursive ?? false),
    );
    reply.json(paginate(req, reply, entries));
  });

  router.route('GET', '/projects/:id/repository/blobs/:sha', {}, async (req, reply) => {
    const project = readableProject(ctx, req);
    const blob = await gitCall(() => readBlob(project.repo, req.pathParams.sha));
    reply.json({ size: blob.size, encoding: 'base64', content: blob.content.toString('base64'), sha: blob.sha });
  });

  router.route('GET', '/projects/:id/repository/blobs/:sha/raw', {}, async (req, reply) => {
    const project = readableProject(ctx, req);
    const blob = await gitCall(() => readBlob(project.repo, req.pathParams.sha));
    sendRaw(reply, blob.content);
  });

  router.route('GET', '/projects/:id/repository/archive[.format]', { params: archiveParams }, async (req, reply) => {
    const project = readableProject(ctx, req);
    const format = req.pathParams.format === '' ? 'tar.gz' : req.pathParams.format;
    if (!isArchiveFormat(format)) {
      throw paramError(`format does not have a valid value (one of ${ARCHIVE_FORMATS.join(', ')})`);
    }
    const refName = refOrDefault(project, req.params.sha);
    const commitSha = await project.repo.resolveCommit(refName);
    if (commitSha === null) throw notFound('Ref');
    // The vendor's path: only that subdirectory; one the commit does not have is a 404.
    const path = req.params.path?.replace(/^\/+|\/+$/g, '') || undefined;
    if (path !== undefined) {
      const files = [...(await project.repo.listFiles(commitSha)).keys()];
      if (!files.some((file) => file === path || file.startsWith(`${path}/`))) throw notFound('File');
    }
    const archive = await createArchive(project.repo, { commitSha, refName, projectPath: project.path, format, path });
    reply.header('content-disposition', `attachment; ${dispositionFileName(archive.fileName)}`);
    reply.header('content-transfer-encoding', 'binary');
    reply.send(200, archive.body, archive.contentType);
  });

  router.route('GET', '/projects/:id/repository/compare', { params: compareParams }, async (req, reply) => {
    const project = readableProject(ctx, req);
    const result = await gitCall(() =>
      compareRefs(project.repo, req.params.from, req.params.to, req.params.straight ?? false),
    );
    reply.json({
      commit: result.commit === null ? null : commitView(result.commit),
      commits: result.commits.map(commitView),
      diffs: result.diffs,
      compare_timeout: result.compare_timeout,
      compare_same_ref: result.compare_same_ref,
    });
  });

  codeListRoute(
    router,
    ctx,
    '/projects/:id/repository/contributors',
    contributorParams,
    async (project, req, reply) => {
      const list = await gitCall(() =>
        contributors(project.repo, {
          ref: project.default_branch,
          orderBy: req.params.order_by,
          sort: req.params.sort,
        }),
      );
      reply.json(paginate(req, reply, list));
    },
  );

  router.route('GET', '/projects/:id/repository/merge_base', { params: mergeBaseParams }, async (req, reply) => {
    const project = readableProject(ctx, req);
    if (req.params.refs.length < 2) throw messageError(400, 'Provide at least 2 refs');
    const base = await gitCall(() => mergeBase(project.repo, req.params.refs));
    if (base === null) throw notFound('Merge Base');
    reply.json(commitView(await gitCall(() => project.repo.getCommit(base))));
  });
}
