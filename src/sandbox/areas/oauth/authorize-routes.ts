// The browser side of the authorization code flow: GET /oauth/authorize (checks the request, sends a signed-out
// browser to sign in, then shows the consent page or, for a trusted application, answers at once), POST
// /oauth/authorize (the consent form's Authorize or Deny), and the sign-in and sign-out pages behind it.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { unrevokedTokensOf } from '../../core/credentials.js';
import { optionalParams, param } from '../../core/params.js';
import { registerAll, type Reply, type Router, type SandboxRequest } from '../../core/router.js';
import type { Store, User } from '../../core/store.js';
import { checkPassword } from '../users/index.js';
import { type Application, applicationsOf, redirectUriMatches } from './applications.js';
import { type AuthorizationRequest, readAuthorizationRequest, redirectWith } from './authorization-request.js';
import { DESCRIPTIONS } from './errors.js';
import { issueCode } from './grants.js';
import { formActionSource, sendPage, sendRedirect } from './html.js';
import { consentPage, errorPage, messagePage, rejectedFormPage, signedInPage, signInPage } from './pages.js';
import {
  type BrowserSession,
  type FormPurpose,
  ensureSession,
  formToken,
  redeemFormToken,
  sessionOf,
  signedInUser,
  signIn,
  signOut,
} from './sessions.js';

const text = () => z.string().optional();

const authorizeParams = z.object({
  ...optionalParams(param.string, 'client_id', 'redirect_uri', 'response_type', 'state', 'scope'),
  // PKCE (RFC 7636).
  ...optionalParams(param.string, 'code_challenge', 'code_challenge_method'),
});

const formParams = z.object({ authenticity_token: text(), decision: text() });
const signInParams = z.object({ authenticity_token: text(), username: text(), password: text() });

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

/** The target of a request as the browser asked for it, to come back to after signing in. */
function pathOf(req: SandboxRequest<unknown>): string {
  return `${req.url.pathname}${req.url.search}`;
}

/** A signed-out browser goes to the sign-in page, and comes back here afterwards. */
function sendToSignIn(store: Store, req: SandboxRequest<unknown>, reply: Reply, formOrigins: string[]): void {
  const session = ensureSession(store, req.headers, reply);
  session.return_to = { path: pathOf(req), formOrigins };
  sendRedirect(reply, '/users/sign_in');
}

/** Signed in, or sent to sign in (then undefined): the pages that act for a person start with this. */
export function requireSignIn(
  store: Store,
  req: SandboxRequest<unknown>,
  reply: Reply,
  formOrigins: string[] = [],
): { session: BrowserSession; user: User } | undefined {
  const session = sessionOf(store, req.headers);
  const user = signedInUser(store, session);
  if (session && user) return { session, user };
  sendToSignIn(store, req, reply, formOrigins);
  return undefined;
}

/** The forms a page hands one signed-in person. */
type PersonalForm = Extract<FormPurpose, { user_id: number }>;

/**
 * The signed-in person's answer to a page that acted for them (consent, a device code): its form token redeemed for
 * `purpose`, from the same person; anything else is answered with the rejected-form page (then undefined).
 */
export function redeemPersonalForm<P extends PersonalForm['purpose']>(
  store: Store,
  req: SandboxRequest<{ authenticity_token?: string }>,
  reply: Reply,
  purpose: P,
): { session: BrowserSession; user: User; form: Extract<FormPurpose, { purpose: P }> } | undefined {
  const session = sessionOf(store, req.headers);
  const form = redeemFormToken(store, session, req.params.authenticity_token, purpose);
  const user = signedInUser(store, session);
  if (session && form && user && user.id === (form as PersonalForm).user_id) return { session, user, form };
  sendPage(reply, 'Rejected', rejectedFormPage(), { status: 422 });
  return undefined;
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

/** The sign-in page and signing out. */
function registerSignInPage(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  router.route('GET', '/users/sign_in', {}, (req, reply) => {
    const session = ensureSession(store, req.headers, reply);
    const user = signedInUser(store, session);
    if (user) {
      const back = session.return_to;
      session.return_to = null;
      if (back) sendRedirect(reply, back.path);
      else sendPage(reply, 'Signed in', signedInPage(user, formToken(store, session, { purpose: 'sign_out' })));
      return;
    }
    const token = formToken(store, session, { purpose: 'sign_in' });
    sendPage(reply, 'Sign in', signInPage({ token }), { formOrigins: session.return_to?.formOrigins });
  });

  router.route('POST', '/users/sign_in', { params: signInParams }, (req, reply) => {
    const session = sessionOf(store, req.headers);
    const form = redeemFormToken(store, session, req.params.authenticity_token, 'sign_in');
    if (!session || !form) {
      sendPage(reply, 'Rejected', rejectedFormPage(), { status: 422 });
      return;
    }
    const login = (req.params.username ?? '').trim().toLowerCase();
    const user = store.users.find((u) => u.username.toLowerCase() === login || u.email.toLowerCase() === login);
    const verdict =
      user && req.params.password !== undefined ? checkPassword(store, user, req.params.password) : 'wrong';
    const again = (status: number, error: string) => {
      const token = formToken(store, session, { purpose: 'sign_in' });
      const page = signInPage({ token, error, username: req.params.username });
      sendPage(reply, 'Sign in', page, { status, formOrigins: session.return_to?.formOrigins });
    };
    if (!user || verdict === 'wrong') return again(401, 'Invalid login or password.');
    if (user.state === 'blocked') {
      return again(
        403,
        'Your account has been blocked. Please contact your administrator if you think this is an error.',
      );
    }
    if (verdict === 'must_change') {
      // The service makes the owner of a password set by an administrator choose a new one, which the sandbox has no page for.
      return again(
        403,
        'Your password was set by an administrator and has expired: an administrator must set a new one.',
      );
    }
    const signedIn = signIn(store, session, reply, user);
    const now = new Date(store.clock.now());
    user.last_sign_in_at = user.current_sign_in_at;
    user.current_sign_in_at = now;
    const back = signedIn.return_to;
    signedIn.return_to = null;
    if (back) sendRedirect(reply, back.path);
    else sendPage(reply, 'Signed in', signedInPage(user, formToken(store, signedIn, { purpose: 'sign_out' })));
  });

  router.route('POST', '/users/sign_out', { params: formParams }, (req, reply) => {
    const session = sessionOf(store, req.headers);
    if (!session || !redeemFormToken(store, session, req.params.authenticity_token, 'sign_out')) {
      sendPage(reply, 'Rejected', rejectedFormPage(), { status: 422 });
      return;
    }
    signOut(store, session, reply);
    sendPage(reply, 'Signed out', messagePage('Signed out', 'You have been signed out.'));
  });
}
