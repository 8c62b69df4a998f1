// Releases area: list, read, create and update a project's releases (tag, notes, milestones, asset links).
import { z } from 'zod';
import { defineOperation, fields, defineArea } from '../engine/define.js';
import type { FollowUp, Presentation, RunContext } from '../engine/define.js';
import { buildPath } from '../../http/route.js';
import { serviceGet } from '../engine/effect-facts.js';
import { asList, asRecord, momentText, presentList, show } from '../engine/present.js';

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

/**
 * The release before a new one (the newest other release), read right after create_release: its tag is where the
 * notes of the new one start, offered as the compare of the two (the commit titles since).
 */
const previousRelease = {
  async after(ctx: RunContext, input: { id: string | number; tag_name: string }, data: unknown) {
    if (data === null || typeof data !== 'object' || Array.isArray(data)) return data;
    const releases = asList(await serviceGet(ctx, buildPath('/projects/:id/releases', input), { per_page: '5' }));
    const previous = releases.find((r) => typeof r.tag_name === 'string' && r.tag_name !== input.tag_name);
    return previous ? { ...asRecord(data), previous_release: { tag_name: previous.tag_name } } : data;
  },
};

/**
 * A release just written, with its notes as the service stored them: what was published, read back. After a new
 * release, the next step offered is the compare from the previous release's tag: the commit titles the notes cover.
 */
export function presentWrittenRelease(data: unknown, input: { id: unknown }, now = Date.now()): Presentation {
  const release = asRecord(data);
  const shown = presentRelease(data, now);
  const notes = release.description;
  const previous = asRecord(release.previous_release).tag_name;
  const actions: FollowUp[] =
    typeof previous === 'string' && typeof release.tag_name === 'string'
      ? [
          {
            label: `Commits since ${previous} (for the notes)`,
            operation: 'compare_refs',
            input: { id: input.id, from: previous, to: release.tag_name },
          },
        ]
      : [];
  return {
    ...shown,
    ...(typeof notes === 'string' && notes.trim() !== '' ? { sections: [{ title: 'notes', text: notes }] } : {}),
    ...(actions.length > 0 ? { actions } : {}),
  };
}

const releasesOperations = [
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
    examples: [{ input: { id: 'acme/web' } }],
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
    examples: [{ input: { id: 'acme/web', tag_name: 'v1.0.0' } }],
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
    present: (data, input) => presentWrittenRelease(data, input),
    answerReads: previousRelease,
    decisions: { runs: [{ id: 'acme/web', tag_name: 'v9', description: 'notes' }], asks: [] },
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
    present: (data, input) => presentWrittenRelease(data, input),
    // A release's old notes, name, milestones and date are kept nowhere.
    decisions: {
      runs: [{ id: 'acme/web', tag_name: 'v1.0.0' }],
      asks: [
        { id: 'acme/web', tag_name: 'v1.0.0', description: 'new notes' },
        { id: 'acme/web', tag_name: 'v1.0.0', name: 'n' },
        { id: 'acme/web', tag_name: 'v1.0.0', milestones: [] },
        { id: 'acme/web', tag_name: 'v1.0.0', released_at: '2026-01-01T00:00:00Z' },
      ],
    },
  }),
];

export const area = defineArea({ name: 'releases', operations: releasesOperations });
