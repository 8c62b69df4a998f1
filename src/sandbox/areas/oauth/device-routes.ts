// The device authorization grant (RFC 8628): POST /oauth/authorize_device gives a device its codes; a person signs in
// at the verification URI (/oauth/device), types the user code, and authorizes or denies on the consent page; the
// device meanwhile polls POST /oauth/token (token-routes.ts).
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import type { Router } from '../../core/router.js';
import { isTokenScope, type TokenScope } from '../../core/scopes.js';
import { applicationsOf, authenticateClient } from './applications.js';
import { redeemPersonalForm, requireSignIn } from './sign-in-routes.js';
import { DESCRIPTIONS, NO_STORE, oauthError } from './errors.js';
import {
  DEVICE_CODE_LIFETIME_S,
  deviceGrantExpired,
  findDeviceGrant,
  issueDeviceGrant,
  pendingDeviceGrantByUserCode,
} from './grants.js';
import { sendPage } from './html.js';
import { consentPage, deviceCodePage, messagePage } from './pages.js';
import { formToken } from './sessions.js';

const text = () => z.string().optional();
const DEFAULT_SCOPES: TokenScope[] = ['api'];
const userCodeFormParams = z.object({ authenticity_token: text(), user_code: text() });
const consentFormParams = z.object({ authenticity_token: text(), decision: text() });

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;

  router.route(
    'POST',
    '/oauth/authorize_device',
    { params: z.object({ client_id: text(), client_secret: text(), scope: text() }) },
    (req, reply) => {
      const app = authenticateClient(store, req.headers, req.params);
      const asked = req.params.scope?.trim() ? req.params.scope.trim().split(/\s+/) : DEFAULT_SCOPES;
      if (!asked.every((s) => isTokenScope(s) && app.scopes.includes(s))) {
        throw oauthError(400, 'invalid_scope', DESCRIPTIONS.invalid_scope);
      }
      const grant = issueDeviceGrant(store, {
        application_id: app.id,
        scopes: [...new Set(asked)] as TokenScope[],
      });
      const verification = `${store.baseUrl}/oauth/device`;
      for (const [name, value] of Object.entries(NO_STORE)) reply.header(name, value);
      reply.json({
        device_code: grant.device_code,
        user_code: grant.user_code,
        verification_uri: verification,
        verification_uri_complete: `${verification}?user_code=${encodeURIComponent(grant.user_code)}`,
        expires_in: DEVICE_CODE_LIFETIME_S,
        interval: grant.interval,
      });
    },
  );

  router.route('GET', '/oauth/device', { params: z.object({ user_code: text() }) }, (req, reply) => {
    const signedIn = requireSignIn(store, req, reply);
    if (!signedIn) return;
    const token = formToken(store, signedIn.session, { purpose: 'device_code', user_id: signedIn.user.id });
    sendPage(reply, 'Connect a device', deviceCodePage({ token, userCode: req.params.user_code }));
  });

  router.route('POST', '/oauth/device', { params: userCodeFormParams }, (req, reply) => {
    const answer = redeemPersonalForm(store, req, reply, 'device_code');
    if (!answer) return;
    const { session, user } = answer;
    const grant = pendingDeviceGrantByUserCode(store, req.params.user_code ?? '');
    const app = grant && applicationsOf(store).find((a) => a.id === grant.application_id);
    if (!grant || !app) {
      const token = formToken(store, session, { purpose: 'device_code', user_id: user.id });
      const page = deviceCodePage({
        token,
        userCode: req.params.user_code,
        error: 'That code is not valid or has expired. Check the code your device shows.',
      });
      sendPage(reply, 'Connect a device', page, { status: 400 });
      return;
    }
    const token = formToken(store, session, {
      purpose: 'device_consent',
      user_id: user.id,
      device_code: grant.device_code,
    });
    const page = consentPage({ app, user, scopes: grant.scopes, token, action: '/oauth/device/confirm' });
    sendPage(reply, `Authorize ${app.name}`, page);
  });

  router.route('POST', '/oauth/device/confirm', { params: consentFormParams }, (req, reply) => {
    const answer = redeemPersonalForm(store, req, reply, 'device_consent');
    if (!answer) return;
    const { form, user } = answer;
    const grant = findDeviceGrant(store, form.device_code);
    if (grant?.status !== 'pending' || deviceGrantExpired(store, grant)) {
      const page = messagePage('Code expired', 'This device code has expired. Start again on your device.');
      sendPage(reply, 'Code expired', page, { status: 400 });
      return;
    }
    if (req.params.decision === 'authorize') {
      grant.status = 'approved';
      grant.user_id = user.id;
      sendPage(reply, 'Device connected', messagePage('Device connected', 'You can go back to your device.'));
      return;
    }
    grant.status = 'denied';
    sendPage(reply, 'Access denied', messagePage('Access denied', 'The device was not given access.'));
  });
}
