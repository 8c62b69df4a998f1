// Projects area: find the projects visible to the caller (the instance-wide project list).
import { z } from 'zod';
import { defineOperation } from './define.js';

const flag = (what: string) => z.boolean().optional().describe(what);

export const projectsOperations = [
  defineOperation({
    name: 'list_projects',
    chat: 'project list',
    area: 'projects',
    title: 'List projects',
    description:
      'List the projects visible to you, filtered by name, membership, visibility and more, in ID order. ' +
      'Use it to find a project\'s ID or full path (path_with_namespace) before calling project tools. ' +
      'Returns id, name, path_with_namespace, description, default_branch, web_url, last_activity_at and, ' +
      'unless simple=true or no token is set, the full project record. Pages are read with keyset pagination ' +
      '(no page numbers): use all_pages to read on.',
    route: 'GET /projects',
    input: z.object({
      search: z.string().min(1).optional().describe('Only projects matching this text, e.g. in their name or path.'),
      archived: flag('true: only archived projects; false: only active ones.'),
      visibility: z.enum(['public', 'internal', 'private']).optional().describe('Only projects with this visibility.'),
      // Keyset pagination, the only kind that reads past 10,000 projects, works only in ID order.
      order_by: z.enum(['id']).default('id').describe('Sort key; keyset pagination works only with "id".'),
      sort: z.enum(['asc', 'desc']).optional().describe('Sort direction (default desc: newest first).'),
      simple: flag('Return only the short form of each project (faster, smaller).'),
      owned: flag('Only projects you own.'),
      membership: flag('Only projects you are a member of.'),
      starred: flag('Only projects you starred.'),
      statistics: flag('Include statistics: commit count and storage sizes.'),
      with_custom_attributes: flag('Include custom attributes (administrators).'),
      with_issues_enabled: flag('Only projects with issues enabled.'),
      with_merge_requests_enabled: flag('Only projects with merge requests enabled.'),
      with_programming_language: z.string().min(1).optional()
        .describe('Only projects using this programming language, e.g. "TypeScript".'),
      wiki_checksum_failed: flag('Only projects whose wiki checksum failed (higher licence tier).'),
      repository_checksum_failed: flag('Only projects whose repository checksum failed (higher licence tier).'),
      min_access_level: z.literal([10, 20, 30, 40, 50]).optional().describe(
        'Only projects where you have at least this access level: 10 guest, 20 reporter, 30 developer, ' +
        '40 maintainer, 50 owner.',
      ),
      id_after: z.number().int().min(0).optional().describe('Only projects with an ID greater than this.'),
      id_before: z.number().int().min(1).optional().describe('Only projects with an ID less than this.'),
      custom_attributes: z.record(z.string().min(1), z.string()).optional()
        .describe('Only projects with these custom attribute values (administrators), e.g. {"team": "infra"}.'),
    }),
    effect: 'read',
    pagination: 'keyset',
  }),
];
