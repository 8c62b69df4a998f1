// Project snippets: list, read, raw content, create, update, delete, and the user agent detail for administrators.
//
// Visibility (spec): a private snippet is its author's only, internal any signed-in user's, public anyone's — within
// a project the caller can see at all (a private project is 404 to a non-member). A snippet the caller may not see
// is 404 {"message": "404 Snippet Not Found"}, as a missing one. Access levels (the spec is silent; the service's
// roles): creating needs reporter (20); changing or deleting, the author or a maintainer (40); archived projects are
// read-only. The user agent detail is for administrators only (401 anonymous, 403 anyone else). Snippets carry
// `visibility` besides the spec's field list: a client that sets it must be able to read it back.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, notFound, paramError } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import { integerPathParam, type Router, type SandboxRequest } from '../../core/router.js';
import { canChangeSnippet, canSeeSnippet, type Snippet } from './state.js';
import { ACCESS, type Project, type Store } from '../../core/store.js';
import { authorWithEmail, pickFields, projectWebUrl } from '../../core/views.js';
import { snippetsOf } from './state.js';

const VISIBILITY = ['private', 'internal', 'public'] as const;
/** The service refuses blank text where it requires a value. */
const text = () => z.string().refine((s) => s.trim() !== '', 'is empty');

const createParams = z.object({
  title: text(),
  file_name: text(),
  content: text(),
  visibility: param.enum(VISIBILITY),
  description: z.string().optional(),
});
const updateParams = createParams.partial();
const UPDATABLE = ['title', 'file_name', 'content', 'visibility', 'description'] as const;

function snippetView(store: Store, project: Project, snippet: Snippet) {
  const author = store.findUser(String(snippet.author_id));
  return {
    ...pickFields(snippet, ['id', 'title', 'file_name', 'description', 'visibility']),
    author: authorWithEmail(author),
    created_at: snippet.created_at.toISOString(),
    updated_at: snippet.updated_at.toISOString(),
    web_url: `${projectWebUrl(store, project)}/-/snippets/${snippet.id}`,
  };
}

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;

  /** The snippet of the path in that project, or 404 when it is missing or hidden from the caller. */
  function findSnippet(req: SandboxRequest<unknown>, project: Project): Snippet {
    const id = integerPathParam(req, 'snippet_id');
    const snippet = snippetsOf(store).find((s) => s.id === id && s.project_id === project.id);
    if (!snippet || !canSeeSnippet(req.user, snippet)) throw notFound('Snippet');
    return snippet;
  }

  /** A snippet the caller may change: 404 as for reading, then 403 for neither its author nor a maintainer. */
  function changeable(req: SandboxRequest<unknown>): { project: Project; snippet: Snippet } {
    const user = ctx.requireUser(req);
    const project = ctx.findProjectFor(req, req.pathParams.id, { write: true });
    const snippet = findSnippet(req, project);
    if (!canChangeSnippet(ctx.projectAccess(user, project), user, snippet)) throw forbidden();
    return { project, snippet };
  }

  router.route('GET', '/projects/:id/snippets', { pagination: 'offset' }, (req, reply) => {
    const project = ctx.findProjectFor(req, req.pathParams.id);
    const visible = snippetsOf(store)
      .filter((s) => s.project_id === project.id && canSeeSnippet(req.user, s))
      .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || b.id - a.id);
    reply.json(paginate(req, reply, visible).map((s) => snippetView(store, project, s)));
  });

  router.route('GET', '/projects/:id/snippets/:snippet_id', {}, (req, reply) => {
    const project = ctx.findProjectFor(req, req.pathParams.id);
    reply.json(snippetView(store, project, findSnippet(req, project)));
  });

  router.route('GET', '/projects/:id/snippets/:snippet_id/raw', {}, (req, reply) => {
    const project = ctx.findProjectFor(req, req.pathParams.id);
    reply.send(200, findSnippet(req, project).content, 'text/plain; charset=utf-8');
  });

  router.route('POST', '/projects/:id/snippets', { params: createParams, auth: 'user' }, (req, reply) => {
    const user = ctx.requireUser(req);
    const project = ctx.findProjectFor(req, req.pathParams.id, { minAccess: ACCESS.reporter, write: true });
    const now = new Date();
    const snippet: Snippet = {
      id: store.nextId('snippet'),
      project_id: project.id,
      title: req.params.title,
      file_name: req.params.file_name,
      description: req.params.description ?? null,
      content: req.params.content,
      visibility: req.params.visibility,
      author_id: user.id,
      created_at: now,
      updated_at: now,
      // The sandbox listens on loopback only, so every caller's address is this one.
      user_agent_detail: {
        user_agent: req.headers['user-agent'] ?? '',
        ip_address: '127.0.0.1',
        spamfilter_submitted: false,
      },
    };
    snippetsOf(store).push(snippet);
    reply.json(snippetView(store, project, snippet), 201);
  });

  router.route('PUT', '/projects/:id/snippets/:snippet_id', { params: updateParams, auth: 'user' }, (req, reply) => {
    if (UPDATABLE.every((key) => req.params[key] === undefined)) {
      throw paramError(`${UPDATABLE.join(', ')} are missing, at least one parameter must be provided`);
    }
    const { project, snippet } = changeable(req);
    for (const key of UPDATABLE) {
      const value = req.params[key];
      if (value !== undefined) Object.assign(snippet, { [key]: value });
    }
    snippet.updated_at = new Date();
    reply.json(snippetView(store, project, snippet));
  });

  router.route('DELETE', '/projects/:id/snippets/:snippet_id', { auth: 'user' }, (req, reply) => {
    const { snippet } = changeable(req);
    snippetsOf(store).splice(snippetsOf(store).indexOf(snippet), 1);
    reply.empty(204);
  });

  router.route('GET', '/projects/:id/snippets/:snippet_id/user_agent_detail', { auth: 'user' }, (req, reply) => {
    // Administrators only, checked before anything is looked up: no one else learns whether the snippet exists.
    if (!ctx.requireUser(req).is_admin) throw forbidden();
    const project = ctx.findProjectFor(req, req.pathParams.id);
    reply.json({ ...findSnippet(req, project).user_agent_detail });
  });
}
