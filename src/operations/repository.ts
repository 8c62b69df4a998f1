// Repository browsing area: tree, blobs, archives, comparisons, contributors and merge bases of a project's repository.
import { z } from 'zod';
import { defineOperation, fields } from './define.js';

/** Archive formats the service accepts as the path suffix; tar.gz is what it sends without one. */
export const ARCHIVE_FORMATS = ['tar.gz', 'tar.bz2', 'tbz', 'tbz2', 'tb2', 'bz2', 'tar', 'zip'] as const;

const blobSha = () => z.string().min(1).describe('Blob SHA (the blob_id of a file or the id of a tree entry).');

export const repositoryOperations = [
  defineOperation({
    name: 'list_repository_tree',
    chat: 'tree list',
    area: 'repository',
    title: 'List repository tree',
    description:
      'List the files and directories of a repository at a ref, at the top level or under `path`; with ' +
      'recursive, the whole subtree. Each entry has id, name, type ("tree" = directory, "blob" = file), path ' +
      'and mode.',
    route: 'GET /projects/:id/repository/tree',
    input: z.object({
      id: fields.projectId(),
      path: z.string().min(1).optional().describe('Directory to list, e.g. "src/lib" (default: the root).'),
      ref: fields.ref('Branch or tag to list (default: the default branch).').optional(),
      recursive: z.boolean().optional().describe('List the whole subtree instead of one level (default false).'),
    }),
    effect: 'read',
    pagination: 'offset',
  }),
  defineOperation({
    name: 'get_blob',
    chat: 'blob get',
    area: 'repository',
    title: 'Get blob',
    description:
      'Read a git blob by its SHA: its text (decoded, fenced) and size; a binary blob is attached or saved. ' +
      'Use get_file to read by path.',
    route: 'GET /projects/:id/repository/blobs/:sha',
    input: z.object({ id: fields.projectId(), sha: blobSha() }),
    effect: 'read',
  }),
  defineOperation({
    name: 'get_raw_blob',
    chat: 'blob raw',
    area: 'repository',
    title: 'Get raw blob',
    description: 'Download a git blob by its SHA as stored: text is shown, a binary is attached or saved.',
    route: 'GET /projects/:id/repository/blobs/:sha/raw',
    input: z.object({ id: fields.projectId(), sha: blobSha() }),
    effect: 'read',
    response: 'bytes',
  }),
  defineOperation({
    name: 'download_archive',
    chat: 'archive download',
    area: 'repository',
    title: 'Download repository archive',
    description:
      'Download a snapshot of the repository at a commit, branch or tag as an archive file (tar.gz by ' +
      'default, or zip, tar, tar.bz2). A small archive is attached; a larger one is saved when a download folder is set.',
    route: 'GET /projects/:id/repository/archive[.format]',
    input: z.object({
      id: fields.projectId(),
      format: z.enum(ARCHIVE_FORMATS).optional()
        .describe('Archive format: tar.gz (default), tar.bz2, tbz, tbz2, tb2, bz2, tar or zip.'),
      sha: fields.ref('Commit SHA, branch or tag to archive (default: tip of the default branch).').optional(),
    }),
    effect: 'read',
    response: 'bytes',
  }),
  defineOperation({
    name: 'compare_refs',
    chat: 'refs compare',
    area: 'repository',
    title: 'Compare branches, tags or commits',
    description:
      'Show what changed between two refs: the commits and file diffs. By default compares from the merge ' +
      'base (from...to, "what does `to` add"); straight=true compares the two snapshots directly (from..to). ' +
      'Returns commit, commits, diffs, compare_timeout and compare_same_ref. Diffs may be empty when they ' +
      'exceed the service\'s limits.',
    route: 'GET /projects/:id/repository/compare',
    input: z.object({
      id: fields.projectId(),
      from: fields.ref('Branch, tag or commit SHA to compare from (the base).'),
      to: fields.ref('Branch, tag or commit SHA to compare to.'),
      straight: z.boolean().optional()
        .describe('true: compare from..to directly; false (default): compare against the merge base (from...to).'),
    }),
    effect: 'read',
  }),
  defineOperation({
    name: 'list_contributors',
    chat: 'contributor list',
    area: 'repository',
    title: 'List contributors',
    description:
      'List the people who committed to the repository, with their name, email and commit, addition and ' +
      'deletion counts.',
    route: 'GET /projects/:id/repository/contributors',
    input: z.object({
      id: fields.projectId(),
      order_by: z.enum(['name', 'email', 'commits']).optional().describe('Sort key (default commits).'),
      sort: z.enum(['asc', 'desc']).optional().describe('Sort direction (default asc).'),
    }),
    effect: 'read',
    pagination: 'offset',
  }),
  defineOperation({
    name: 'get_merge_base',
    chat: 'merge-base get',
    area: 'repository',
    title: 'Get merge base',
    description:
      'Find the best common ancestor commit of two or more branches, tags or commits (e.g. where a feature ' +
      'branch forked from main). Returns that commit.',
    route: 'GET /projects/:id/repository/merge_base',
    input: z.object({
      id: fields.projectId(),
      // A merge base of a single ref is the ref itself: asking for one is a mistake worth catching here.
      refs: z.array(z.string().min(1)).min(2)
        .describe('Two or more commit SHAs, branches or tags, e.g. ["main", "feature/login"].'),
    }),
    effect: 'read',
  }),
];
