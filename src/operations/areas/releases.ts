// Releases area: list, read, create and update a project's releases (tag, notes, milestones, asset links).
import { z } from 'zod';
import { defineOperation, fields } from '../engine/define.js';
import type { Presentation } from '../engine/define.js';
import { asRecord, momentText, presentList, show } from '../engine/present.js';

const tagName = () => z.string().min(1);

const milestoneTitles = () => z.array(z.string().min(1));

// Create and update take the same fields but mean different things by leaving one out (a default vs no change),
// so each describes its own.
const createDetailsShape = {
  name: z.string().min(1).optional(),
  milestones: milestoneTitles().optional().describe('Milestone titles.'),
  released_at: fields.dateTime('Default now').optional(),
};

const updateDetailsShape = {
  name: z.string().min(1).optional(),
  milestones: milestoneTitles().optional().describe('Milestone titles, replacing the links; [] unlinks all.'),
  released_at: fields.dateTime().optional(),
};

/** One release, its time as people read it ("2026-11-29 11:36 UTC"), not the service's ISO string. */
export function presentRelease(data: unknown, now = Date.now()): Presentation {
  const release = asRecord(data);
  return {
    title: `Release ${show(release.tag_name)}: ${show(release.name)}`,
    fields: [
      ['tag', show(release.tag_name)],
      ['name', show(release.name)],
      ['released', momentText(release.released_at, now)],
    ],
  };
}

/** A release just written, with its notes as the service stored them: what was published, read back. */
export function presentWrittenRelease(data: unknown, now = Date.now()): Presentation {
  const shown = presentRelease(data, now);
  const notes = asRecord(data).description;
  return typeof notes === 'string' && notes.trim() !== ''
    ? { ...shown, sections: [{ title: 'notes', text: notes }] }
    : shown;
}

export const releasesOperations = [
  defineOperation({
    name: 'list_releases',
    chat: 'release list',
    area: 'releases',
    title: 'List releases',
    description: "List a project's releases by released_at, with notes and assets.",
    route: 'GET /projects/:id/releases',
    input: z.object({ id: fields.projectId() }),
    effect: 'read',
    pagination: 'offset',
    present: presentList('release', (r) => [show(r.tag_name), `${show(r.name)} · ${momentText(r.released_at)}`]),
  }),
  defineOperation({
    name: 'get_release',
    chat: 'release get',
    area: 'releases',
    title: 'Get release',
    description: 'Read one release by its tag, with notes, milestones and assets.',
    route: 'GET /projects/:id/releases/:tag_name',
    input: z.object({ id: fields.projectId(), tag_name: tagName() }),
    effect: 'read',
    present: (data) => presentRelease(data),
  }),
  defineOperation({
    name: 'create_release',
    chat: 'release create',
    area: 'releases',
    title: 'Create release',
    description: 'Publish a release for a tag, with notes and asset links; with `ref` a missing tag is created there.',
    route: 'POST /projects/:id/releases',
    input: z.object({
      id: fields.projectId(),
      tag_name: tagName(),
      description: z.string().min(1).describe('Release notes, Markdown.'),
      ref: fields.ref('Where to create a missing tag: branch, tag or commit SHA.').optional(),
      ...createDetailsShape,
      assets: z
        .strictObject({
          links: z.array(
            z.strictObject({
              name: z.string().min(1).describe('E.g. "Linux binary".'),
              url: z.url(),
            }),
          ),
        })
        .optional(),
    }),
    effect: 'write',
    undo: 'Adds a release (and its tag when `ref` is given); an existing release of the tag is refused, never overwritten.',
    present: (data) => presentWrittenRelease(data),
  }),
  defineOperation({
    name: 'update_release',
    chat: 'release update',
    area: 'releases',
    title: 'Update release',
    description: "Change a release's name, notes, milestones or date; fields left out stay as they are.",
    route: 'PUT /projects/:id/releases/:tag_name',
    input: z.object({
      id: fields.projectId(),
      tag_name: tagName(),
      description: z.string().min(1).optional().describe('Release notes, Markdown.'),
      ...updateDetailsShape,
    }),
    effect: 'write',
    undo:
      "The values it replaces are kept nowhere: no history holds a release's earlier notes, name, " +
      'milestones or date, so it asks a human whenever it replaces one.',
    needsApproval: (input) => {
      const replaced = (['description', 'name', 'milestones', 'released_at'] as const).filter(
        (k) => input[k] !== undefined,
      );
      if (replaced.length === 0) return undefined;
      return (
        `It overwrites the release's ${replaced.join(', ')}; the current values are kept nowhere (no history), ` +
        'so read them with get_release first if they may be needed.'
      );
    },
    present: (data) => presentWrittenRelease(data),
  }),
];
