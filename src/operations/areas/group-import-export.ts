// Group import and export area: start a group's export, download the archive once it is ready, and create a new
// group from an archive (a multipart upload, hence its own run).
import { z } from 'zod';
import { defineOperation, fields, defineArea } from '../engine/define.js';
import type { Operation } from '../engine/define.js';
import { buildRequest } from '../engine/execute.js';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

const importGroup: Operation = defineOperation({
  name: 'import_group',
  chat: 'group import',
  area: 'group_import_export',
  title: 'Import group',
  description: 'Create a group with its subgroups, labels and members from a download_group_export archive.',
  route: 'POST /groups/import',
  input: z.object({
    name: z.string().min(1),
    path: z.string().min(1),
    file: z.string().min(4).regex(BASE64, 'must be Base64').describe('The archive, Base64-encoded.'),
    parent_id: z.number().int().positive().optional().describe('A group ID: create it as its subgroup.'),
  }),
  effect: 'write',
  undo: 'Creates a new group and replaces nothing (a taken path is refused); deleting the new group undoes it.',
  run: async (ctx, input) => {
    // The service reads the archive as a file part of a multipart form, never as JSON.
    const form = new FormData();
    form.append('name', input.name);
    form.append('path', input.path);
    if (input.parent_id !== undefined) form.append('parent_id', String(input.parent_id));
    form.append(
      'file',
      new Blob([Buffer.from(input.file, 'base64')], { type: 'application/gzip' }),
      'group_export.tar.gz',
    );
    const res = await ctx.client.request({ ...buildRequest(importGroup, {}, ctx), body: form, bodyType: 'multipart' });
    return { data: res.data, status: res.status };
  },
  decisions: { runs: [{ name: 'Copy', path: 'copy', file: 'H4sIAAAA', parent_id: 1 }], asks: [] },
});

const groupImportExportOperations = [
  defineOperation({
    name: 'export_group',
    chat: 'group export',
    area: 'group_import_export',
    title: 'Export group',
    description: 'Start a group export; download_group_export fetches it when ready. Needs Owner access.',
    route: 'POST /groups/:id/export',
    input: z.object({ id: fields.groupId() }),
    effect: 'write',
    undo: "Changes nothing in the group; it builds an archive that replaces the previous export, which the group's owners can download.",
    // An export changes nothing in the group; an import only adds a new group.
    decisions: { runs: [{ id: 'acme' }], asks: [] },
  }),
  defineOperation({
    name: 'download_group_export',
    chat: 'group export-download',
    area: 'group_import_export',
    title: 'Download group export',
    description: "Download a group's export archive; 404 until it is ready. Needs Owner access.",
    route: 'GET /groups/:id/export/download',
    input: z.object({ id: fields.groupId() }),
    effect: 'read',
    response: 'bytes',
    examples: [{ input: { id: 'acme' } }],
  }),
  importGroup,
];

export const area = defineArea({ name: 'group_import_export', operations: groupImportExportOperations });
