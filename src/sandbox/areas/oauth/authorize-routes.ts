// The browser side of the authorization code flow: GET /oauth/authorize (checks the request, sends a signed-out
// browser to sign in, then shows the consent page or, for a trusted application, answers at once) and POST
// /oauth/authorize (the consent form's Authorize or Deny); the sign-in and sign-out pages behind it are
// ./sign-in-routes.ts.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { unrevokedTokensOf } from '../../core/credentials.js';
import { optionalParams, param } from '../../core/params.js';
import { registerAll, type Reply, type Router } from '../../core/router.js';
import type { Store, User } from '../../core/store.js';
import { type Application, applicationsOf, redirectUriMatches } from './applications.js';
import { type AuthorizationRequest, readAuthorizationRequest, redirectWith } from './authorization-request.js';
import { DESCRIPTIONS } from './errors.js';
import { issueCode } from './grants.js';
import { formActionSource, sendPage, sendRedirect } from './html.js';
import { consentPage, errorPage } from './pages.js';
import { formToken } from './sessions.js';
import { formParams, redeemPersonalForm, registerSignInPage, requireSignIn } from './sign-in-routes.js';

const authorizeParams = z.object({
  ...optionalParams(param.string, 'client_id', 'redirect_uri', 'response_type', 'state', 'scope'),
  // PKCE (RFC 7636).
  ...optionalParams(param.string, 'code_challenge', 'code_challenge_method'),
});

/** Where a form on a page of this request may lead: the provider, and the client's redirect URI. */
function formOriginsOf(redirectUri: string): string[] {
  const source = formActionSource(redirectUri);
  return source ? [source] : [];
}

/** Sends the browser back to the client with a fresh code for the request. */
function answerWithCode(store: Store, reply: Reply, request: AuthorizationRequest, user: User): void {
  const code = issueCode(store, {
    application_id: request.application_id,
    user_id: user.id,
    redirect_uri: request.redirect_uri,
    scopes: request.scopes,
    code_challenge: request.code_challenge,
  });
  sendRedirect(reply, redirectWith(request.redirect_uri, { code: code.code, state: request.state }));
}

/**
 * Whether the person is not asked again: a trusted application never asks; a confidential one does not ask a person
 * who already holds a token of it with the same scopes, as the service's provider skips a consent it already has.
 */
function consentGiven(store: Store, app: Application, user: User, request: AuthorizationRequest): boolean {
  if (app.trusted) return true;
  if (!app.confidential) return false;
  const wanted = [...request.scopes].sort().join(' ');
  return unrevokedTokensOf(store, user.id, app.id).some((t) => [...t.scopes].sort().join(' ') === wanted);
}

export const register = registerAll(registerAuthorize, registerSignInPage);

/** The authorization page and its answer. */
function registerAuthorize(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  router.route('GET', '/oauth/authorize', { params: authorizeParams }, (req, reply) => {
    const read = readAuthorizationRequest(store, req.params);
    if (read.kind === 'page') {
      sendPage(reply, 'Error', errorPage(read.error, read.description), { status: read.status });
      return;
    }
    if (read.kind === 'redirect') {
      sendRedirect(reply, read.location);
      return;
    }
    const { app, request } = read;
    const formOrigins = formOriginsOf(request.redirect_uri);
    const signedIn = requireSignIn(store, req, reply, formOrigins);
    if (!signedIn) return;
    const { session, user } = signedIn;
    if (consentGiven(store, app, user, request)) {
      answerWithCode(store, reply, request, user);
      return;
    }
    // The request itself is kept with the form's token: the submission can only approve what this page showed.
    const token = formToken(store, session, { purpose: 'consent', user_id: user.id, request });
    const page = consentPage({ app, user, scopes: request.scopes, token, action: '/oauth/authorize' });
    sendPage(reply, `Authorize ${app.name}`, page, { formOrigins });
  });

  router.route('POST', '/oauth/authorize', { params: formParams }, (req, reply) => {
    const answer = redeemPersonalForm(store, req, reply, 'consent');
    if (!answer) return;
    const { form, user } = answer;
    const { request } = form;
    // The application may have been deleted, or its redirect URIs changed, while the page was open.
    const app = applicationsOf(store).find((a) => a.id === request.application_id);
    if (!app || !redirectUriMatches(app, request.redirect_uri)) {
      sendPage(reply, 'Error', errorPage('invalid_redirect_uri', DESCRIPTIONS.invalid_redirect_uri), { status: 400 });
      return;
    }
    if (req.params.decision === 'authorize') {
      answerWithCode(store, reply, request, user);
      return;
    }
    sendRedirect(
      reply,
      redirectWith(request.redirect_uri, {
        error: 'access_denied',
        error_description: DESCRIPTIONS.access_denied,
        state: request.state,
      }),
    );
  });
}
