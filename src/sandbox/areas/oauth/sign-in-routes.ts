// The sign-in and sign-out pages behind the provider's pages, and how a page that acts for a person begins (signed
// in, or sent to sign in and brought back afterwards) and takes that person's answer (a form token redeemed).
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import type { Reply, Router, SandboxRequest } from '../../core/router.js';
import type { Store, User } from '../../core/store.js';
import { checkPassword } from '../users/index.js';
import { sendPage, sendRedirect } from './html.js';
import { messagePage, rejectedFormPage, signedInPage, signInPage } from './pages.js';
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

/** A page's form: its token, and the consent form's decision (signing out sends the token alone). */
export const formParams = z.object({ authenticity_token: text(), decision: text() });
const signInParams = z.object({ authenticity_token: text(), username: text(), password: text() });

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

/** The sign-in page and signing out. */
export function registerSignInPage(router: Router, ctx: SandboxContext): void {
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
      // The service makes the owner of a password set by an administrator choose a new one, which the sandbox has no
      // page for.
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
