// Lookups by a key that came from outside (a tool argument, a chat word, a Slack action id, a tool or prompt name):
// only the object's own entries answer, so "constructor", "toString" or "__proto__" never reach its prototype.

/** The object's own entry under `key`, or undefined: never one inherited from Object.prototype. */
export function ownEntry<V>(record: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
