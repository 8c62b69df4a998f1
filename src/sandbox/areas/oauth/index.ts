// The oauth area of the sandbox: the service's OAuth 2 provider (applications, sign-in and consent pages, the
// authorization code flow with PKCE, refresh, the device grant, revocation, introspection, token info, userinfo) and
// its admin Applications API. The tokens it issues are core (../../core/credentials.ts), where every API request is
// authenticated. The server registers the applications a caller names at start through registerApplication.
import type { SandboxArea } from '../../core/area.js';
import { revokeAccessTokensWhere } from '../../core/credentials.js';
import { register as registerApplicationsApi } from './applications-routes.js';
import { register as registerAuthorize } from './authorize-routes.js';
import { register as registerDevice } from './device-routes.js';
import { forgetGrantsWhere } from './grants.js';
import { forgetSessionsOf } from './sessions.js';
import { register as registerTokens } from './token-routes.js';

export { type Application, type ApplicationInput, registerApplication } from './applications.js';

export const area: SandboxArea = {
  name: 'oauth',
  routes: registerApplicationsApi,
  webRoutes: (router, ctx) => {
    registerAuthorize(router, ctx);
    registerTokens(router, ctx);
    registerDevice(router, ctx);
  },
  forgetUser: (store, user) => {
    revokeAccessTokensWhere(store, (t) => t.user_id === user.id);
    forgetGrantsWhere(store, (g) => g.user_id === user.id);
    forgetSessionsOf(store, user.id);
  },
};
