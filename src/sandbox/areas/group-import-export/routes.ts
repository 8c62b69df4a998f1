// Group export and import (experimental in the spec): POST export answers 202 and starts an archive; the download
// is 404 until it is ready, then the archive; import takes a multipart form (name, path, file, parent_id) and
// answers 202 once the group is created. Who may (the spec is silent; the service's rules): exporting and
// downloading, the group's owners; importing, anyone who may create a top-level group, or a maintainer of the
// parent. A taken path, a bad path or a file that is not an export is a model error; nothing is created then.
import { z } from 'zod';
import { recordAuditEvent } from '../../core/audit.js';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, notFound, validationError } from '../../core/errors.js';
import { importGroup, readExportArchive } from './state.js';
import { param } from '../../core/params.js';
import type { Router, SandboxRequest } from '../../core/router.js';
import { ACCESS } from '../../core/store.js';
import { groupExportsOf } from './state.js';

/** What the server makes of a multipart file part. */
const uploadedFile = z.object({ filename: z.string(), content_type: z.string(), content: z.instanceof(Buffer) });
const importParams = z.object({
  name: z.string(),
  path: z.string(),
  file: uploadedFile,
  parent_id: param.integer().optional(),
});
const PATH = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;

  const ownedGroup = (req: SandboxRequest<unknown>) => {
    ctx.requireUser(req);
    return ctx.findGroupFor(req, req.pathParams.id, { minAccess: ACCESS.owner });
  };

  router.route('POST', '/groups/:id/export', { auth: 'user' }, (req, reply) => {
    const group = ownedGroup(req);
    groupExportsOf(store).start(store, group);
    recordAuditEvent(
      store,
      ctx.requireUser(req),
      { type: 'Group', group },
      { custom_message: 'Export requested', target_type: 'Group', target_details: group.full_path },
    );
    reply.json({ message: '202 Accepted' }, 202);
  });

  router.route('GET', '/groups/:id/export/download', { auth: 'user' }, (req, reply) => {
    const group = ownedGroup(req);
    const archive = groupExportsOf(store).ready(group);
    if (!archive) throw notFound();
    const day = new Date().toISOString().slice(0, 10);
    reply.header(
      'content-disposition',
      `attachment; filename="${day}_${group.full_path.replace(/\//g, '_')}_export.json.gz"`,
    );
    reply.send(200, archive, 'application/gzip');
  });

  router.route('POST', '/groups/import', { params: importParams, auth: 'user' }, (req, reply) => {
    const user = ctx.requireUser(req);
    const { name, path, file, parent_id } = req.params;
    const parent =
      parent_id === undefined ? undefined : ctx.findGroupFor(req, String(parent_id), { minAccess: ACCESS.maintainer });
    if (!parent && !user.can_create_group && !user.is_admin) throw forbidden();
    const errors: Record<string, string[]> = {};
    if (name.trim() === '') errors.name = ["can't be blank"];
    if (!PATH.test(path)) errors.path = ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-'"];
    else if (store.findGroup(parent ? `${parent.full_path}/${path}` : path)) errors.path = ['has already been taken'];
    const tree = readExportArchive(file.content);
    if (!tree) errors.file = ['is not a group export archive'];
    if (Object.keys(errors).length > 0 || !tree) throw validationError(errors);
    const group = importGroup(store, tree, { name, path, parent }, user);
    recordAuditEvent(
      store,
      user,
      { type: 'Group', group },
      { custom_message: `Imported from ${file.filename}`, target_type: 'Group', target_details: group.full_path },
    );
    reply.json({ message: '202 Accepted' }, 202);
  });
}
