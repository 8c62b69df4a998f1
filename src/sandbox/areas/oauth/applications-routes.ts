// The service's admin Applications API (instance-wide OAuth applications): list, create, delete, renew the secret.
// Administrators only; the secret is shown on create and renew, never in the list. Not a forgeops operation: the
// sandbox serves it so that a test or a person can register a client the way they would on the service.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { revokeAccessTokensWhere } from '../../core/credentials.js';
import { notFound, paramError, validationError } from '../../core/errors.js';
import { param } from '../../core/params.js';
import { integerPathParam, type Router } from '../../core/router.js';
import type { TokenScope } from '../../core/scopes.js';
import {
  type Application,
  applicationProblems,
  applicationsOf,
  newClientSecret,
  registerApplication,
} from './applications.js';
import { forgetGrantsWhere } from './grants.js';

function applicationView(app: Application) {
  return {
    id: app.id,
    application_id: app.uid,
    application_name: app.name,
    // The service keeps several redirect URIs as one text, a line each.
    callback_url: app.redirect_uris.join('\n'),
    confidential: app.confidential,
    scopes: app.scopes,
  };
}

const createParams = z.object({
  name: z.string(),
  redirect_uri: z.string(),
  scopes: z.string().optional(),
  confidential: param.boolean().optional(),
});

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;

  router.route('GET', '/applications', { auth: 'admin' }, (_req, reply) => {
    reply.json(applicationsOf(store).map(applicationView));
  });

  router.route('POST', '/applications', { auth: 'admin', params: createParams }, (req, reply) => {
    const { name, redirect_uri, scopes, confidential } = req.params;
    if (scopes === undefined) throw paramError('scopes is missing, scopes is empty');
    if (scopes.trim() === '') throw paramError('scopes is empty');
    const input = {
      name,
      redirect_uris: redirect_uri.split(/\s+/).filter((uri) => uri !== ''),
      scopes: scopes.trim().split(/\s+/) as TokenScope[],
      confidential: confidential ?? true,
    };
    const problems = applicationProblems(input);
    if (Object.keys(problems).length > 0) throw validationError(problems);
    const app = registerApplication(store, input);
    reply.json({ ...applicationView(app), secret: app.secret }, 201);
  });

  router.route('DELETE', '/applications/:id', { auth: 'admin' }, (req, reply) => {
    const id = integerPathParam(req, 'id');
    const apps = applicationsOf(store);
    const index = apps.findIndex((app) => app.id === id);
    if (index < 0) throw notFound('Application');
    const [app] = apps.splice(index, 1);
    // What the application was given goes with it.
    revokeAccessTokensWhere(store, (t) => t.application_id === app.id);
    forgetGrantsWhere(store, (g) => g.application_id === app.id);
    reply.empty(204);
  });

  router.route('POST', '/applications/:id/renew-secret', { auth: 'admin' }, (req, reply) => {
    const id = integerPathParam(req, 'id');
    const app = applicationsOf(store).find((a) => a.id === id);
    if (!app) throw notFound('Application');
    app.secret = newClientSecret();
    reply.json({ ...applicationView(app), secret: app.secret }, 201);
  });
}
