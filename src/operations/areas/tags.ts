// Tags area (beyond the spec; the service's Tags API, v4): find, read, create and delete a project's tags.
import { z } from 'zod';
import { defineOperation, fields, defineArea } from '../engine/define.js';
import type { Presentation } from '../engine/define.js';
import { asRecord, presentList, shortSha, show } from '../engine/present.js';

const tagName = () => z.string().min(1);

function presentTag(data: unknown): Presentation {
  const tag = asRecord(data);
  const commit = asRecord(tag.commit);
  return {
    title: `Tag ${show(tag.name)}`,
    fields: [
      ['commit', `${shortSha(commit.id)} ${show(commit.title)}`],
      ['message', show(tag.message)],
      ['release', show(asRecord(tag.release).tag_name)],
    ],
  };
}

const tagsOperations = [
  defineOperation({
    name: 'list_tags',
    chat: 'tag list',
    area: 'tags',
    outsideSpec: 'Tags API: List project repository tags',
    title: 'List tags',
    description: "List a project's tags; search by name, order by name, updated or version.",
    route: 'GET /projects/:id/repository/tags',
    input: z.object({
      id: fields.projectId(),
      search: z.string().min(1).optional().describe('Part of the name; ^start or end$ anchor it.'),
      order_by: z.enum(['name', 'updated', 'version']).optional().describe('Default updated.'),
      sort: z.enum(['asc', 'desc']).optional().describe('Default desc.'),
    }),
    effect: 'read',
    pagination: 'offset',
    present: presentList('tag', (t) => [
      show(t.name),
      `${shortSha(asRecord(t.commit).id)} ${show(asRecord(t.commit).title)}`,
    ]),
    examples: [{ input: { id: 'acme/web' } }],
  }),
  defineOperation({
    name: 'get_tag',
    chat: 'tag get',
    area: 'tags',
    outsideSpec: 'Tags API: Get a single repository tag',
    title: 'Get tag',
    description: 'Read one tag: its commit, message and release.',
    route: 'GET /projects/:id/repository/tags/:tag_name',
    input: z.object({ id: fields.projectId(), tag_name: tagName() }),
    effect: 'read',
    present: presentTag,
    examples: [{ input: { id: 'acme/web', tag_name: 'v1.0.0' } }],
  }),
  defineOperation({
    name: 'create_tag',
    chat: 'tag create',
    area: 'tags',
    outsideSpec: 'Tags API: Create a new tag',
    title: 'Create tag',
    description: 'Create a tag at a ref; with a message it is an annotated tag.',
    route: 'POST /projects/:id/repository/tags',
    input: z.object({
      id: fields.projectId(),
      tag_name: tagName(),
      ref: fields.ref('What it points at: branch, tag or commit SHA.'),
      message: z.string().min(1).optional().describe('Makes an annotated tag.'),
    }),
    queryKeys: ['tag_name', 'ref', 'message'],
    effect: 'write',
    undo: 'Adds a tag and moves no other (an existing name is refused); delete_tag removes it again.',
    present: presentTag,
    decisions: { runs: [{ id: 'acme/web', tag_name: 'v9', ref: 'main' }], asks: [] },
  }),
  defineOperation({
    name: 'delete_tag',
    chat: 'tag delete',
    area: 'tags',
    outsideSpec: 'Tags API: Delete a tag',
    title: 'Delete tag',
    description: 'Delete a tag; the service deletes a release on it too.',
    route: 'DELETE /projects/:id/repository/tags/:tag_name',
    input: z.object({ id: fields.projectId(), tag_name: tagName() }),
    effect: 'destructive',
    undo: 'The tag and its release (notes, links) are gone, and builds that name the tag break; create_tag at the same SHA brings the tag back while that SHA is known, not the release.',
    decisions: { runs: [], asks: [{ id: 'acme/web', tag_name: 'v1.0.0' }] },
  }),
];

export const area = defineArea({
  name: 'tags',
  operations: tagsOperations,
  // Beyond the spec: what python-gitlab and gitbeaker (test/interop/) do not drive yet; each drives all of it today.
  interop: { notYetDriven: { pythonGitlab: [], gitbeaker: [] } },
});
