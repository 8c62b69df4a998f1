// GET /user: the caller's own account; administrators may act as another user with `sudo`.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, notFound } from '../../core/errors.js';
import type { Router } from '../../core/router.js';
import { userAdmin, userSelf } from '../../core/views.js';
import { USERS_API } from './routes.js';

export function register(router: Router, ctx: SandboxContext): void {
  router.route(
    'GET',
    '/user',
    {
      auth: 'user',
      readScopes: USERS_API,
      params: z.object({ sudo: z.union([z.string().min(1), z.number().int()]).optional() }),
    },
    (req, reply) => {
      const caller = ctx.requireUser(req);
      let user = caller;
      if (req.params.sudo !== undefined) {
        if (!caller.is_admin) throw forbidden('Must be admin to use sudo');
        const target = ctx.store.findUser(String(req.params.sudo));
        if (!target) throw notFound('User');
        user = target;
      }
      // With sudo the request acts as that user, so the form is the one that user would see.
      reply.json(user.is_admin ? userAdmin(ctx.store, user) : userSelf(ctx.store, user));
    },
  );
}
