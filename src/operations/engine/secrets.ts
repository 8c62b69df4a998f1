// Which values are credentials (tokens, passwords, keys, webhook URLs) and how they are kept out of what people and
// models see: tool results, chat, approval prompts, the audit log.
import { createHash } from 'node:crypto';

/**
 * Parameter and field names whose value is a credential: a chat webhook's URL (its path is the secret), and any
 * name ending in _KEY or -key (AWS_KEY, SIGNING_KEY, api_key; a bare "key" is a variable's name, not a credential),
 * cloud access keys (eks_access_key_id), client and private keys, key passphrases, credentials by name.
 */
const SECRET_NAME =
  /token|secret|passw(or)?d|passphrase|webhook|credential|private_?key|access_key|client_key|key_pass|[_-]key$/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
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

/** The value with every non-empty credential (at any depth) replaced by REDACTED; everything else as it was. */
export function redactSecrets(value: unknown): unknown {
  return redactNamed(value, '');
}

function redactNamed(value: unknown, name: string): unknown {
  if (isSecretName(name) && value !== null && value !== undefined && value !== '' && typeof value !== 'boolean')
    return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactNamed(item, name));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, v]) => [key, redactNamed(v, key)]),
    );
  }
  return value;
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
