// The caller's to-do for an epic: one per user and epic, so a second POST is 304 with no body.
import type { SandboxContext } from '../../core/context.js';
import type { Router } from '../../core/router.js';
import { ACCESS } from '../../core/store.js';
import { userBasic } from '../../core/views.js';
import { epicStateOf } from './epic-state.js';
import { epicView } from './epic-view.js';
import { epicOf } from './epics-routes.js';

/** A to-do for an epic. */
export function registerEpicTodos(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  const state = epicStateOf(store);
  router.route('POST', '/groups/:id/epics/:epic_iid/todo', { auth: 'user' }, (req, reply) => {
    const { user, group, access, epic } = epicOf(ctx, req);
    if (state.todos.some((t) => t.user_id === user.id && t.epic_id === epic.id)) {
      reply.empty(304);
      return;
    }
    const todo = { id: store.nextId('todo'), user_id: user.id, epic_id: epic.id, created_at: new Date() };
    state.todos.push(todo);
    const target = epicView(store, epic, { from: group, canEdit: access >= ACCESS.reporter });
    reply.json(
      {
        id: todo.id,
        group: {
          id: group.id,
          name: group.name,
          path: group.path,
          kind: 'group',
          full_path: group.full_path,
          parent_id: group.parent_id,
        },
        // The author of a to-do one marks oneself is oneself.
        author: userBasic(store, user),
        action_name: 'marked',
        target_type: 'Epic',
        target,
        target_url: target.web_url,
        body: epic.title,
        state: 'pending',
        created_at: todo.created_at.toISOString(),
      },
      201,
    );
  });
}
