// Browser sessions of the provider's pages: a cookie (HttpOnly, SameSite=Lax) naming a session held here, who signed
// in on it, where to go back after signing in, and the one-time tokens of the forms it was shown (CSRF protection:
// a form is accepted only with a token its own page carried, on the same session, once). Sessions and tokens are
// capped and expire on the sandbox's clock, since any stranger can open a page.
import type { IncomingHttpHeaders } from 'node:http';
import { areaState } from '../../core/area.js';
import { randomSecret } from '../../core/credentials.js';
import type { Reply } from '../../core/router.js';
import type { Store, User } from '../../core/store.js';
import type { AuthorizationRequest } from './authorization-request.js';

/** The service's session cookie. */
export const SESSION_COOKIE = '_gitlab_session';
/** The service signs a browser out after a week without a visit. */
const SESSION_IDLE_MS = 7 * 24 * 60 * 60 * 1000;
const FORM_TOKEN_MS = 60 * 60 * 1000;
const MAX_SESSIONS = 1_000;
const MAX_FORMS_PER_SESSION = 20;

/** What a form's token lets its submission do: the page that carried it decided, not the submission. */
export type FormPurpose =
  | { purpose: 'sign_in' }
  | { purpose: 'sign_out' }
  | { purpose: 'consent'; user_id: number; request: AuthorizationRequest }
  | { purpose: 'device_code'; user_id: number }
  | { purpose: 'device_consent'; user_id: number; device_code: string };

export interface BrowserSession {
  id: string;
  user_id: number | null;
  last_seen: number;
  /** A path of the provider to go back to after signing in (always one the provider set, never a parameter). */
  return_to: { path: string; formOrigins: string[] } | null;
  forms: Map<string, FormPurpose & { expires_at: number }>;
}

const sessionsOf = areaState('oauth_browser_sessions', () => new Map<string, BrowserSession>());

function cookieValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  for (const part of (headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function setCookie(reply: Reply, id: string): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax`);
}

/** The request's session, when its cookie names one that has not expired. */
export function sessionOf(store: Store, headers: IncomingHttpHeaders): BrowserSession | undefined {
  const id = cookieValue(headers, SESSION_COOKIE);
  const sessions = sessionsOf(store);
  const session = id === undefined ? undefined : sessions.get(id);
  if (!session) return undefined;
  const now = store.clock.now();
  if (now - session.last_seen >= SESSION_IDLE_MS) {
    sessions.delete(session.id);
    return undefined;
  }
  session.last_seen = now;
  return session;
}

/** The request's session, or a new anonymous one whose cookie the reply sets. */
export function ensureSession(store: Store, headers: IncomingHttpHeaders, reply: Reply): BrowserSession {
  return sessionOf(store, headers) ?? newSession(store, reply, null, null);
}

function newSession(
  store: Store,
  reply: Reply,
  userId: number | null,
  returnTo: BrowserSession['return_to'],
): BrowserSession {
  const sessions = sessionsOf(store);
  const now = store.clock.now();
  for (const [id, s] of sessions) if (now - s.last_seen >= SESSION_IDLE_MS) sessions.delete(id);
  const session: BrowserSession = {
    id: randomSecret(),
    user_id: userId,
    last_seen: now,
    return_to: returnTo,
    forms: new Map(),
  };
  sessions.set(session.id, session);
  for (const id of sessions.keys()) {
    if (sessions.size <= MAX_SESSIONS) break;
    sessions.delete(id);
  }
  setCookie(reply, session.id);
  return session;
}

/**
 * Signs `user` in on a new session that replaces `old` (a new id, so that a session id planted before the sign-in
 * is worth nothing after it) and keeps where to go back.
 */
export function signIn(store: Store, old: BrowserSession, reply: Reply, user: User): BrowserSession {
  sessionsOf(store).delete(old.id);
  return newSession(store, reply, user.id, old.return_to);
}

export function signOut(store: Store, session: BrowserSession, reply: Reply): void {
  sessionsOf(store).delete(session.id);
  reply.header('set-cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`);
}

/** The signed-in user of a session, when that account still exists and is not blocked. */
export function signedInUser(store: Store, session: BrowserSession | undefined): User | undefined {
  const user = session?.user_id == null ? undefined : store.users.find((u) => u.id === session.user_id);
  return user?.state === 'active' ? user : undefined;
}

/** A one-time token for a form the page is about to show. */
export function formToken(store: Store, session: BrowserSession, purpose: FormPurpose): string {
  const token = randomSecret();
  session.forms.set(token, { ...purpose, expires_at: store.clock.now() + FORM_TOKEN_MS });
  for (const key of session.forms.keys()) {
    if (session.forms.size <= MAX_FORMS_PER_SESSION) break;
    session.forms.delete(key);
  }
  return token;
}

/**
 * Takes a form's token: what its page allowed, when the token was issued on this session for this kind of form and
 * has not expired or been used; undefined otherwise. It works once either way.
 */
export function redeemFormToken<P extends FormPurpose['purpose']>(
  store: Store,
  session: BrowserSession | undefined,
  token: string | undefined,
  purpose: P,
): Extract<FormPurpose, { purpose: P }> | undefined {
  if (!session || token === undefined) return undefined;
  const form = session.forms.get(token);
  if (!form) return undefined;
  session.forms.delete(token);
  if (form.purpose !== purpose || store.clock.now() >= form.expires_at) return undefined;
  return form as unknown as Extract<FormPurpose, { purpose: P }>;
}

/** Forgets the sessions of a removed user. */
export function forgetSessionsOf(store: Store, userId: number): void {
  const sessions = sessionsOf(store);
  for (const [id, s] of sessions) if (s.user_id === userId) sessions.delete(id);
}
