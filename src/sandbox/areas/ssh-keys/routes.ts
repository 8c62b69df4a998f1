// SSH key lookup (administrators only): a key by its id or by its MD5 or SHA256 fingerprint, with its user's
// administrator form. Anonymous callers get 401, other users 403, before anything is looked up.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, notFound } from '../../core/errors.js';
import { integerPathParam, type Router, type SandboxRequest } from '../../core/router.js';
import { findKeyByFingerprint, type SshKey } from './state.js';
import { userAdmin } from '../../core/views.js';
import { sshKeysOf } from './state.js';

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;

  function requireAdmin(req: SandboxRequest<unknown>): void {
    if (!ctx.requireUser(req).is_admin) throw forbidden();
  }

  function keyView(key: SshKey) {
    const user = store.findUser(String(key.user_id));
    return {
      id: key.id,
      title: key.title,
      key: key.key,
      created_at: key.created_at.toISOString(),
      user: user ? userAdmin(store, user) : null,
    };
  }

  router.route('GET', '/keys/:id', { auth: 'user' }, (req, reply) => {
    requireAdmin(req);
    const id = integerPathParam(req, 'id');
    const key = sshKeysOf(store).find((k) => k.id === id);
    if (!key) throw notFound();
    reply.json(keyView(key));
  });

  // The query arrives decoded: a SHA256 fingerprint's '+' sent unencoded would read as a space and match nothing.
  router.route('GET', '/keys', { auth: 'user', params: z.object({ fingerprint: z.string().min(1) }) }, (req, reply) => {
    requireAdmin(req);
    const key = findKeyByFingerprint(sshKeysOf(store), req.params.fingerprint);
    if (!key) throw notFound();
    reply.json(keyView(key));
  });
}
