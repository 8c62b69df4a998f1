// Lookups by a name a request gave (a custom attribute, a job's or project's name): own entries only, so that
// "constructor" or "__proto__" is a name nothing has, never a property every object inherits. (The sandbox keeps its
// own copy of this rule: it shares no code with the client side.)

/** The record's own entry under `key`, or undefined. */
export function ownEntry<V>(record: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
