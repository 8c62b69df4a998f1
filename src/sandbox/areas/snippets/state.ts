// Project snippets of the sandbox: their record, who may see and change one, and the demo snippets.
//
// What the demo accounts see (visibility private = its author only, internal = anyone signed in, public = anyone):
//   acme/web (public)              4 snippets: 2 public, 1 internal, 1 private (bob's) — anonymous callers see 2
//   acme/platform/payments-api     2 snippets (private project: erin sees none of them, not even that it exists)
//   acme/platform/infra (internal) 1 internal snippet
//   bob/scratchpad (private)       1 private snippet
import { ACCESS, type Project, type Store, type User, type Visibility } from '../../core/store.js';
import { areaState } from '../../core/area.js';

interface UserAgentDetail {
  user_agent: string;
  ip_address: string;
  spamfilter_submitted: boolean;
}

export interface Snippet {
  id: number;
  project_id: number;
  title: string;
  file_name: string;
  description: string | null;
  content: string;
  visibility: Visibility;
  author_id: number;
  created_at: Date;
  updated_at: Date;
  /** Where it was created from; shown to administrators only. */
  user_agent_detail: UserAgentDetail;
}

/**
 * Whether the caller may see a snippet of a project they can already see: by its own visibility, with
 * administrators seeing all (the spec: private is the creator's only, internal any signed-in user, public anyone).
 */
export function canSeeSnippet(user: User | null, snippet: Snippet): boolean {
  if (snippet.visibility === 'public') return true;
  if (!user) return false;
  if (user.is_admin || snippet.visibility === 'internal') return true;
  return snippet.author_id === user.id;
}

/** Changing or deleting a snippet: its author, or a maintainer of the project (the spec is silent; the service's roles). */
export function canChangeSnippet(projectAccess: number, user: User, snippet: Snippet): boolean {
  return snippet.author_id === user.id || projectAccess >= ACCESS.maintainer;
}

const DAY = 24 * 60 * 60 * 1000;

interface SeedSnippet {
  title: string;
  file_name: string;
  description?: string;
  content: string;
  visibility: Visibility;
  author: string;
  /** Created this many days before today. */
  created: number;
  /** Edited this many days before today. */
  edited?: number;
  userAgent: string;
  spam?: boolean;
}

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

const SNIPPETS: Record<string, SeedSnippet[]> = {
  'acme/web': [
    {
      title: 'Local dev setup',
      file_name: 'setup.sh',
      description: 'Everything a new frontend developer runs on day one.',
      content: '#!/bin/sh\nset -e\nnpm ci\ncp .env.example .env\nnpm run dev\n',
      visibility: 'public',
      author: 'alice',
      created: 40,
      edited: 12,
      userAgent: BROWSER,
    },
    {
      title: 'Button variants',
      file_name: 'button.html',
      content: '<button class="btn">Shop now</button>\n<button class="btn btn--ghost">Later</button>\n',
      visibility: 'public',
      author: 'bob',
      created: 21,
      userAgent: 'python-requests/2.32.3',
    },
    {
      title: 'Feature flag cheat sheet',
      file_name: 'flags.md',
      description: 'Which flags are on where.',
      content: '| flag | staging | production |\n|---|---|---|\n| new_search | on | off |\n',
      visibility: 'internal',
      author: 'carol',
      created: 9,
      userAgent: BROWSER,
    },
    {
      title: 'Debugging notes',
      file_name: 'notes.txt',
      content: 'search returns nothing for "  shoes " — trim the query first\n',
      visibility: 'private',
      author: 'bob',
      created: 3,
      userAgent: 'curl/8.5.0',
      spam: true,
    },
  ],
  'acme/platform/payments-api': [
    {
      title: 'Refund replay',
      file_name: 'replay_refunds.rb',
      description: 'Replays refunds stuck in pending; run from a console.',
      content: 'Refund.pending.where("created_at < ?", 1.hour.ago).find_each(&:replay!)\n',
      visibility: 'internal',
      author: 'alice',
      created: 30,
      userAgent: BROWSER,
    },
    {
      title: 'Webhook payload sample',
      file_name: 'webhook.json',
      content: '{\n  "event": "charge.succeeded",\n  "amount": 4200\n}\n',
      visibility: 'private',
      author: 'alice',
      created: 5,
      userAgent: 'forgeops/0.1.0',
    },
  ],
  'acme/platform/infra': [
    {
      title: 'Terraform imports',
      file_name: 'imports.sh',
      content: 'terraform import aws_s3_bucket.assets acme-assets\n',
      visibility: 'internal',
      author: 'root',
      created: 60,
      userAgent: BROWSER,
    },
  ],
  'bob/scratchpad': [
    {
      title: 'Scratch SQL',
      file_name: 'orders.sql',
      content: 'SELECT status, count(*) FROM orders GROUP BY status;\n',
      visibility: 'private',
      author: 'bob',
      created: 14,
      userAgent: BROWSER,
    },
  ],
};

/** Adds the demo snippets, oldest first so that ids follow creation. */
export function seedSnippets(store: Store, users: Map<string, User>, epoch: number): void {
  // Midnight: a snippet seeded 14 days ago reads "14d" old all day long.
  const at = (days: number) => new Date(epoch - days * DAY);
  const entries = Object.entries(SNIPPETS).flatMap(([path, specs]) =>
    specs.map((spec) => [store.findProject(path)!, spec] as const),
  );
  entries.sort(([, a], [, b]) => b.created - a.created);
  for (const [project, spec] of entries)
    snippetsOf(store).push(newSnippet(store, project, spec, users.get(spec.author)!, at));
}

function newSnippet(
  store: Store,
  project: Project,
  spec: SeedSnippet,
  author: User,
  at: (days: number) => Date,
): Snippet {
  return {
    id: store.nextId('snippet'),
    project_id: project.id,
    title: spec.title,
    file_name: spec.file_name,
    description: spec.description ?? null,
    content: spec.content,
    visibility: spec.visibility,
    author_id: author.id,
    created_at: at(spec.created),
    updated_at: at(spec.edited ?? spec.created),
    user_agent_detail: {
      user_agent: spec.userAgent,
      ip_address: '127.0.0.1',
      spamfilter_submitted: spec.spam ?? false,
    },
  };
}

/** Project snippets of every project. */
export const snippetsOf = areaState('snippets', (): Snippet[] => []);
