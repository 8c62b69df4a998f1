// The provider's pages: sign-in, consent (the application and the scopes it asks, Authorize or Deny), the device
// verification pages, and the error and message pages. Every value shown is escaped by the `html` tag.
import type { TokenScope } from '../../core/scopes.js';
import type { User } from '../../core/store.js';
import type { Application } from './applications.js';
import { html, type SafeHtml } from './html.js';

/** What each scope lets the application do, as the consent page says it. */
const SCOPE_TEXT: Record<TokenScope, string> = {
  api: 'Complete read and write access to the API, including all your groups and projects.',
  read_api: 'Read access to the API, including all your groups and projects.',
  read_user: 'Read-only access to your profile (username, public email, full name) and to the users API.',
  read_repository: 'Read-only access to repositories of private projects, through Git over HTTP or the files API.',
  write_repository: 'Read and write access to repositories of private projects, through Git over HTTP.',
  openid: 'Signing you in with OpenID Connect, with read-only access to your profile and group memberships.',
  profile: 'Read-only access to your profile data, through OpenID Connect.',
  email: 'Read-only access to your primary email address, through OpenID Connect.',
};

function scopeList(scopes: readonly TokenScope[]): SafeHtml {
  return html`<ul class="scopes">${scopes.map((s) => html`<li><code>${s}</code>: ${SCOPE_TEXT[s]}</li>`)}</ul>`;
}

function errorBox(message: string | undefined): SafeHtml {
  return message ? html`<p class="error" role="alert">${message}</p>` : html``;
}

function tokenField(token: string): SafeHtml {
  return html`<input type="hidden" name="authenticity_token" value="${token}">`;
}

export function signInPage(options: { token: string; error?: string; username?: string }): SafeHtml {
  return html`<h1>Sign in</h1>
${errorBox(options.error)}
<form method="post" action="/users/sign_in">
${tokenField(options.token)}
<label for="username">Username or primary email</label>
<input type="text" id="username" name="username" autocomplete="username" required value="${options.username ?? ''}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit" class="primary">Sign in</button>
</form>`;
}

export function signedInPage(user: User, signOutToken: string): SafeHtml {
  return html`<h1>Signed in</h1>
<p>You are signed in as <strong>${user.name}</strong> (@${user.username}).</p>
<form method="post" action="/users/sign_out">${tokenField(signOutToken)}<button type="submit">Sign out</button></form>`;
}

export function consentPage(options: {
  app: Application;
  user: User;
  scopes: readonly TokenScope[];
  token: string;
  action: string;
}): SafeHtml {
  const { app, user, scopes, token, action } = options;
  return html`<h1>Authorize ${app.name} to use your account?</h1>
<p>An application called <strong>${app.name}</strong> is requesting access to your account
(<strong>${user.name}</strong>, @${user.username}). It will be able to:</p>
${scopeList(scopes)}
<p>Authorize it only if you trust it.</p>
<form method="post" action="${action}">
${tokenField(token)}
<button type="submit" name="decision" value="authorize" class="primary">Authorize ${app.name}</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`;
}

export function errorPage(error: string, description: string): SafeHtml {
  return html`<h1>An error has occurred</h1>
<p class="error" role="alert"><strong>${error}</strong>: ${description}</p>`;
}

/** The 422 of a form without a valid token: a forged submission, a replayed one or a page left open too long. */
export function rejectedFormPage(): SafeHtml {
  return html`<h1>The change you requested was rejected</h1>
<p class="error" role="alert">The form's authenticity token is missing, invalid or expired. Go back, reload the page
and try again.</p>`;
}

export function messagePage(title: string, text: string): SafeHtml {
  return html`<h1>${title}</h1><p>${text}</p>`;
}

export function deviceCodePage(options: { token: string; userCode?: string; error?: string }): SafeHtml {
  return html`<h1>Connect a device</h1>
${errorBox(options.error)}
<form method="post" action="/oauth/device">
${tokenField(options.token)}
<label for="user_code">Enter the code your device shows</label>
<input type="text" id="user_code" name="user_code" autocomplete="off" required value="${options.userCode ?? ''}">
<button type="submit" class="primary">Continue</button>
</form>`;
}
