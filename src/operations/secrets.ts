// Which values are credentials (tokens, passwords, keys, webhook URLs) and how they are kept out of what people and
// models see: tool results, chat, confirmation prompts, the audit log.

/**
 * Parameter and field names whose value is a credential: a chat webhook's URL (its path is the secret), cloud
 * access keys and TLS client keys too.
 */
const SECRET_NAME = /token|secret|password|api_key|build_key|webhook|access_key|client_key|key_pass/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export const REDACTED = '[redacted]';

/** The value with every non-empty credential (at any depth) replaced by REDACTED; everything else as it was. */
export function redactSecrets(value: unknown, name = ''): unknown {
  if (isSecretName(name) && value !== null && value !== undefined && value !== '' && typeof value !== 'boolean') return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, name));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, v]) => [key, redactSecrets(v, key)]));
  }
  return value;
}

/** A call's input as it may be recorded: the operation's own secret inputs (see secretInputs) redacted. */
export function redactSecretInputs(secretInputs: readonly string[] | undefined, input: Record<string, unknown>): Record<string, unknown> {
  if (!secretInputs?.length) return input;
  return Object.fromEntries(Object.entries(input).map(([key, value]) =>
    [key, secretInputs.includes(key) && value !== undefined && value !== '' ? REDACTED : value]));
}
