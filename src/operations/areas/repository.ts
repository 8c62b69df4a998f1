// Repository browsing area: tree, blobs, archives, comparisons, contributors and merge bases of a project's repository.
import { z } from 'zod';
import { defineOperation, fields, defineArea, demoLookup } from '../engine/define.js';

/** Archive formats the service accepts as the path suffix; tar.gz is what it sends without one. */
export const ARCHIVE_FORMATS = ['tar.gz', 'tar.bz2', 'tbz', 'tbz2', 'tb2', 'bz2', 'tar', 'zip'] as const;

const blobSha = () => z.string().min(1).describe("A file's blob_id or a tree entry's id.");

const repositoryOperations = [
  defineOperation({
    name: 'list_repository_tree',
    chat: 'tree list',
    area: 'repository',
    title: 'List repository tree',
    description: 'List the files and directories under `path` at a ref; recursive lists the whole subtree.',
    route: 'GET /projects/:id/repository/tree',
    input: z.object({
      id: fields.projectId(),
      path: z.string().min(1).optional().describe('Directory; default the root.'),
      ref: fields.ref('Default: the default branch.').optional(),
      recursive: z.boolean().optional().describe('The whole subtree, not one level.'),
    }),
    effect: 'read',
    pagination: 'offset',
    examples: [{ input: { id: 'acme/web', recursive: true } }],
  }),
  defineOperation({
    name: 'get_blob',
    chat: 'blob get',
    area: 'repository',
    title: 'Get blob',
    description: 'Read a git blob by SHA: its text decoded, or a binary attached or saved. get_file reads by path.',
    route: 'GET /projects/:id/repository/blobs/:sha',
    input: z.object({ id: fields.projectId(), sha: blobSha() }),
    effect: 'read',
    examples: [
      { input: { id: 'acme/web', sha: demoLookup('/projects/:id/repository/tree', { where: { type: 'blob' } }) } },
    ],
  }),
  defineOperation({
    name: 'get_raw_blob',
    chat: 'blob raw',
    area: 'repository',
    title: 'Get raw blob',
    description: 'Download a git blob by SHA as stored: text shown, a binary attached or saved.',
    route: 'GET /projects/:id/repository/blobs/:sha/raw',
    input: z.object({ id: fields.projectId(), sha: blobSha() }),
    effect: 'read',
    response: 'bytes',
    examples: [
      { input: { id: 'acme/web', sha: demoLookup('/projects/:id/repository/tree', { where: { type: 'blob' } }) } },
    ],
  }),
  defineOperation({
    name: 'download_archive',
    chat: 'archive download',
    area: 'repository',
    title: 'Download repository archive',
    description:
      'Download the repository at a commit, branch or tag as an archive file: attached if small, else saved to the download folder.',
    route: 'GET /projects/:id/repository/archive[.format]',
    input: z.object({
      id: fields.projectId(),
      format: z.enum(ARCHIVE_FORMATS).optional().describe('Default tar.gz.'),
      sha: fields.ref('Default: the default branch.').optional(),
    }),
    effect: 'read',
    response: 'bytes',
    examples: [{ input: { id: 'acme/web' } }],
  }),
  defineOperation({
    name: 'compare_refs',
    chat: 'refs compare',
    area: 'repository',
    title: 'Compare branches, tags or commits',
    description:
      'Show the commits and file diffs `to` adds over `from`, counted from their merge base unless straight=true.',
    route: 'GET /projects/:id/repository/compare',
    input: z.object({
      id: fields.projectId(),
      from: fields.ref('The base: branch, tag or commit SHA.'),
      to: fields.ref(),
      straight: z.boolean().optional().describe('true: compare the two snapshots directly (from..to).'),
    }),
    effect: 'read',
    examples: [{ input: { id: 'acme/web', from: 'v1.0.0', to: 'main' } }],
  }),
  defineOperation({
    name: 'list_contributors',
    chat: 'contributor list',
    area: 'repository',
    title: 'List contributors',
    description: "List the repository's committers with their commit and line counts.",
    route: 'GET /projects/:id/repository/contributors',
    input: z.object({
      id: fields.projectId(),
      order_by: z.enum(['name', 'email', 'commits']).optional().describe('Default commits.'),
      sort: z.enum(['asc', 'desc']).optional().describe('Default asc.'),
    }),
    effect: 'read',
    pagination: 'offset',
    examples: [{ input: { id: 'acme/web' } }],
  }),
  defineOperation({
    name: 'get_merge_base',
    chat: 'merge-base get',
    area: 'repository',
    title: 'Get merge base',
    description: 'Find the common ancestor commit of two or more refs, e.g. where a branch forked.',
    route: 'GET /projects/:id/repository/merge_base',
    input: z.object({
      id: fields.projectId(),
      // A merge base of a single ref is the ref itself: asking for one is a mistake worth catching here.
      refs: z.array(z.string().min(1)).min(2).describe('Branches, tags or commit SHAs.'),
    }),
    effect: 'read',
    examples: [{ input: { id: 'acme/web', refs: ['main', 'v1.0.0'] } }],
  }),
];

export const area = defineArea({ name: 'repository', operations: repositoryOperations });
