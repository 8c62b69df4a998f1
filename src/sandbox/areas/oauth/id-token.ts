// The OpenID Connect ID token the provider adds to a code grant's token response when the grant has the openid
// scope, signed RS256 with a key published at /oauth/discovery/keys, with the claims the vendor puts in it: a client
// learns who signed in from the token response alone, without asking the API afterwards.
import { randomBytes } from 'node:crypto';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import type { OAuthAccessToken } from '../../core/credentials.js';
import type { Store } from '../../core/store.js';
import { userBasic } from '../../core/views.js';
import type { Application } from './applications.js';

/** The claims an ID token carries (email and email_verified only with the email scope), as discovery lists them. */
export const ID_TOKEN_CLAIMS = [
  'iss',
  'sub',
  'aud',
  'exp',
  'iat',
  'auth_time',
  'sub_legacy',
  'name',
  'nickname',
  'preferred_username',
  'email',
  'email_verified',
  'profile',
  'picture',
] as const;

/** The vendor's ID tokens live two minutes: they are read at sign-in, not kept. */
const ID_TOKEN_LIFETIME_S = 120;

interface SigningKey {
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/** One key per sandbox process, made on the first ID token or key-set request (an RSA key takes a moment). */
let signingKey: Promise<SigningKey> | undefined;

function key(): Promise<SigningKey> {
  signingKey ??= (async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
    const kid = randomBytes(16).toString('base64url');
    return { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, use: 'sig', alg: 'RS256' } };
  })();
  return signingKey;
}

/** The public keys ID tokens are signed with (GET /oauth/discovery/keys). */
export async function publicKeySet(): Promise<{ keys: JWK[] }> {
  return { keys: [(await key()).publicJwk] };
}

/** The ID token for a code grant's access token, or undefined when the grant lacks openid. */
export async function idTokenFor(
  store: Store,
  record: OAuthAccessToken,
  app: Application,
): Promise<string | undefined> {
  if (!record.scopes.includes('openid')) return undefined;
  const user = store.users.find((u) => u.id === record.user_id);
  if (!user) return undefined;
  const basic = userBasic(store, user);
  const issuedAt = Math.floor(store.clock.now() / 1000);
  const withEmail = record.scopes.includes('email');
  const { privateKey, publicJwk } = await key();
  return new SignJWT({
    sub_legacy: String(user.id),
    auth_time: issuedAt,
    name: user.name,
    nickname: user.username,
    preferred_username: user.username,
    ...(withEmail ? { email: user.email, email_verified: user.confirmed_at !== null } : {}),
    profile: basic.web_url,
    picture: basic.avatar_url,
  })
    .setProtectedHeader({ alg: 'RS256', kid: publicJwk.kid, typ: 'JWT' })
    .setIssuer(store.baseUrl)
    .setSubject(String(user.id))
    .setAudience(app.uid)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ID_TOKEN_LIFETIME_S)
    .sign(privateKey);
}
