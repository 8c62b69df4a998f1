// Snippets area: a project's snippets — list, read, raw content, create, update, delete, and (admins) user agent detail.
import { z } from 'zod';
import { defineOperation, fields, defineArea, demoLookup } from '../engine/define.js';
import { exposureFacts, exposureReason, reasons } from './shared/exposure.js';
import { asRecord, presentList, show } from '../engine/present.js';
import { age } from './shared/work-items.js';

// An ID is a whole number: a fraction is refused here, before anything is sent.
const snippetId = () => z.number().int().positive();
const snippetInput = z.object({ id: fields.projectId(), snippet_id: snippetId() });

const VISIBILITY = ['private', 'internal', 'public'] as const;
const visibility = () => z.enum(VISIBILITY).describe('internal: signed-in users.');

/** One line per snippet: title · file · visibility · author · age. */
const presentSnippets = presentList('snippet', (s) => [
  `$${show(s.id)}`,
  [
    show(s.title),
    show(s.file_name),
    ...('visibility' in s ? [show(s.visibility)] : []),
    `@${show(asRecord(s.author).username)}`,
    age(s.created_at),
  ].join(' · '),
]);

// What an update replaces: the service keeps no earlier version of a snippet's text or settings.
const REPLACEABLE = ['title', 'file_name', 'content', 'description', 'visibility'] as const;

const snippetsOperations = [
  defineOperation({
    name: 'list_snippets',
    chat: 'snippet list',
    area: 'snippets',
    title: 'List snippets',
    description: 'List the snippets of a project that you can see.',
    route: 'GET /projects/:id/snippets',
    input: z.object({ id: fields.projectId() }),
    effect: 'read',
    pagination: 'offset',
    present: presentSnippets,
    examples: [{ input: { id: 'acme/web' } }],
  }),
  defineOperation({
    name: 'get_snippet',
    chat: 'snippet get',
    area: 'snippets',
    title: 'Get snippet',
    description: "Read a project snippet's title, file name and author; get_snippet_raw gives its content.",
    route: 'GET /projects/:id/snippets/:snippet_id',
    input: snippetInput,
    effect: 'read',
    examples: [{ input: { id: 'acme/web', snippet_id: demoLookup('/projects/:id/snippets') } }],
  }),
  defineOperation({
    name: 'get_snippet_raw',
    chat: 'snippet raw',
    area: 'snippets',
    title: 'Get snippet content',
    description: "Read a project snippet's content as plain text.",
    route: 'GET /projects/:id/snippets/:snippet_id/raw',
    input: snippetInput,
    effect: 'read',
    response: 'text',
    examples: [{ input: { id: 'acme/web', snippet_id: demoLookup('/projects/:id/snippets') } }],
  }),
  defineOperation({
    name: 'create_snippet',
    chat: 'snippet create',
    area: 'snippets',
    title: 'Create snippet',
    description: 'Add a snippet (one file of text) to a project.',
    route: 'POST /projects/:id/snippets',
    input: z.object({
      id: fields.projectId(),
      title: z.string().min(1),
      file_name: z.string().min(1).describe('E.g. "setup.sh".'),
      content: z.string().min(1),
      visibility: visibility(),
      description: z.string().optional(),
    }),
    effect: 'write',
    undo: 'Adds a new snippet and replaces nothing; delete_snippet removes it again.',
    decisions: {
      runs: [{ id: 'acme/web', title: 't', file_name: 'f.txt', content: 'c', visibility: 'private' }],
      asks: [],
    },
  }),
  defineOperation({
    name: 'update_snippet',
    chat: 'snippet update',
    area: 'snippets',
    title: 'Update snippet',
    description: "Change a project snippet's text or details; fields left out stay.",
    route: 'PUT /projects/:id/snippets/:snippet_id',
    input: z.object({
      id: fields.projectId(),
      snippet_id: snippetId(),
      title: z.string().min(1).optional(),
      file_name: z.string().min(1).optional(),
      content: z.string().min(1).optional().describe('Replaces the whole file.'),
      description: z.string().optional(),
      visibility: visibility().optional(),
    }),
    effect: 'write',
    undo:
      'The values it replaces are kept nowhere (a snippet has no history here), so it asks a human whenever it replaces one, ' +
      'saying so when a wider visibility lets more people read it.',
    facts: exposureFacts('snippet', '/projects/:id/snippets/:snippet_id'),
    needsApproval: (input, now) => {
      const replaced = REPLACEABLE.filter((key) => input[key] !== undefined);
      if (replaced.length === 0) return undefined;
      return reasons(
        exposureReason('snippet', input, now),
        `It overwrites the snippet's ${replaced.join(', ')}; the current values are kept nowhere, so read them ` +
          'with get_snippet and get_snippet_raw first if they may be needed.',
      );
    },
    // A snippet keeps no earlier version of its text or settings; a call that names nothing replaces nothing.
    decisions: {
      runs: [{ id: 'acme/web', snippet_id: 1 }],
      asks: ['title', 'file_name', 'content', 'description', 'visibility'].map((key) => ({
        id: 'acme/web',
        snippet_id: 1,
        [key]: key === 'visibility' ? 'public' : 'x',
      })),
    },
  }),
  defineOperation({
    name: 'delete_snippet',
    chat: 'snippet delete',
    area: 'snippets',
    title: 'Delete snippet',
    description: 'Delete a project snippet for good.',
    route: 'DELETE /projects/:id/snippets/:snippet_id',
    input: snippetInput,
    effect: 'destructive',
    undo: 'Cannot be undone: the snippet and its content are gone for good.',
    decisions: { runs: [], asks: [{ id: 'acme/web', snippet_id: 1 }] },
  }),
  defineOperation({
    name: 'get_snippet_user_agent_detail',
    chat: 'snippet user-agent',
    area: 'snippets',
    title: 'Get snippet user agent detail',
    description: 'Administrators only: the user agent and IP address a snippet was created from.',
    adminOnly: true,
    route: 'GET /projects/:id/snippets/:snippet_id/user_agent_detail',
    input: snippetInput,
    effect: 'read',
    examples: [{ input: { id: 'acme/web', snippet_id: demoLookup('/projects/:id/snippets') } }],
  }),
];

export const area = defineArea({ name: 'snippets', operations: snippetsOperations });
