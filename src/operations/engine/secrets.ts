// Which values are credentials (tokens, passwords, keys, webhook URLs) and how they are kept out of what people and
// models see: tool results, chat, approval prompts, the audit log.
import { createHash } from 'node:crypto';

/**
 * Which names hold a credential, by meaning: a name is read as its words, whatever its case and separators
 * (`apiKey`, `APIKEY`, `api-key` and `api_key` are the words "api key"; `Set-Cookie` is "set cookie"), and it holds a
 * credential when
 * - a word is a credential's anywhere: token, secret, password, passwd, passphrase, credential(s), webhook (a chat
 *   webhook's URL: its path is the secret); or
 * - its last word is authorization, auth, cookie(s) or session(s), or it ends in session id: Authorization,
 *   Proxy-Authorization, basic_auth, Set-Cookie, session_id (but external_authorization_service_url, a setting's
 *   address, and session_expire_delay, a duration, are not); or
 * - a word is one run together: apikey, accesskey, privatekey, clientkey, keypass, authtoken, sessionid (`APIKEY`,
 *   `privatekey`); or
 * - its last word is key after another word (AWS_KEY, SIGNING_KEY, deploy-key): a bare `key` is a variable's name, and
 *   `monkey`, `keyboard` or `KEYCLOAK_URL` are no key at all.
 * Not a credential: a name whose last word says it is about one, not one (token_expires_at, tokens_count,
 * password_length, ci_job_token_scope_enabled: see ABOUT_A_CREDENTIAL), nor author or authored_date (whole words are
 * compared, and "author" is not "auth"). `session` alone is one: what a service calls a session is its id.
 */
const CREDENTIAL_WORDS = new Set([
  'token',
  'tokens',
  'secret',
  'secrets',
  'password',
  'passwords',
  'passwd',
  'passphrase',
  'credential',
  'credentials',
  'webhook',
]);
/** Words that name a credential only as the name's last word (a header, a cookie, a session). */
const CREDENTIAL_LAST_WORDS = new Set(['authorization', 'auth', 'cookie', 'cookies', 'session', 'sessions']);
/** Credentials written as one word (`APIKEY`, `privatekey`), also across two of a name's words (key_pass). */
const RUN_TOGETHER =
  /apikey|accesskey|privatekey|clientkey|keypass|authtoken|accesstoken|sessionid|webhook|password|passwd|passphrase|secret|token|credential/;
/** The same for the last-word credentials: `SETCOOKIE`, `proxyauthorization`. */
const RUN_TOGETHER_LAST = /(authorization|cookies?|sessions?)$/;
/** Last words of a name about a credential rather than holding one: when, how many, what kind, whether. */
const ABOUT_A_CREDENTIAL = new Set([
  'at',
  'date',
  'time',
  'expires',
  'expiry',
  'expiration',
  'count',
  'type',
  'types',
  'length',
  'scope',
  'scopes',
  'enabled',
  'required',
  'present',
  'set',
  'configured',
]);

/** A name's words, lower case: `clientSecret` → client secret, `X-Auth-Token` → x auth token, `APIKEY` → apikey. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/** Names already judged: a service's results repeat the same few field names in every item of every call. */
const judged = new Map<string, boolean>();
/** Bound of `judged`, so that a service inventing names cannot grow it without end. */
const MAX_JUDGED_NAMES = 10_000;

export function isSecretName(name: string): boolean {
  let secret = judged.get(name);
  if (secret === undefined) {
    secret = judgeName(name);
    if (judged.size >= MAX_JUDGED_NAMES) judged.clear();
    judged.set(name, secret);
  }
  return secret;
}

function judgeName(name: string): boolean {
  const words = wordsOf(name);
  if (words.length === 0) return false;
  if (words.length > 1 && ABOUT_A_CREDENTIAL.has(words[words.length - 1])) return false;
  const last = words[words.length - 1];
  if (words.some((word, i) => CREDENTIAL_WORDS.has(word) || RUN_TOGETHER.test(word + (words[i + 1] ?? ''))))
    return true;
  if (CREDENTIAL_LAST_WORDS.has(last) || RUN_TOGETHER_LAST.test(last)) return true;
  return words.length > 1 && last === 'key';
}

export const REDACTED = '[redacted]';

/**
 * A credential as a person or a model reads it unless they ask to see it: its length and a short digest, enough to
 * tell two values apart or notice a change, never the value.
 */
export function maskSecret(value: string): string {
  const digest = createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 8);
  return `<secret, ${value.length} characters, sha256 ${digest}…>`;
}

/**
 * The value with every non-empty credential (at any depth) replaced by REDACTED; everything else as it was. Copied only
 * where something was replaced: an answer without credentials (the usual one) is given back as it came, unchanged.
 */
export function redactSecrets(value: unknown): unknown {
  return redactNamed(value, '');
}

function redactNamed(value: unknown, name: string): unknown {
  if (isSecretName(name) && value !== null && value !== undefined && value !== '' && typeof value !== 'boolean')
    return REDACTED;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const redacted = redactNamed(value[i], name);
      if (redacted !== value[i] && !copy) copy = value.slice(0, i);
      copy?.push(redacted);
    }
    return copy ?? value;
  }
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    let copy: Record<string, unknown> | undefined;
    for (let i = 0; i < keys.length; i++) {
      const redacted = redactNamed(record[keys[i]], keys[i]);
      if (redacted === record[keys[i]] && !copy) continue;
      if (!copy) {
        copy = {};
        for (let j = 0; j < i; j++) setField(copy, keys[j], record[keys[j]]);
      }
      setField(copy, keys[i], redacted);
    }
    return copy ?? value;
  }
  return value;
}

/** Defined, never assigned: a service's own "__proto__" field stays a field, not the copy's prototype. */
function setField(record: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}

/** A call's input as it may be recorded: the operation's own secret inputs (see secretInputs) redacted. */
export function redactSecretInputs(
  secretInputs: readonly string[] | undefined,
  input: Record<string, unknown>,
): Record<string, unknown> {
  if (!secretInputs?.length) return input;
  return Object.fromEntries(
    Object.entries(input).map(([key, value]) => [
      key,
      secretInputs.includes(key) && value !== undefined && value !== '' ? REDACTED : value,
    ]),
  );
}
