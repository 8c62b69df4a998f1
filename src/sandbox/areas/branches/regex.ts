// The branch list's `regex` filter: an RE2 expression (the service's untrusted-regexp engine) matched anywhere in
// the name. JavaScript reads the RE2 subset the same way; what RE2 refuses (look-around, back-references) is
// refused here too, so that a pattern that works against the sandbox works against the service.
import { messageError } from '../../core/errors.js';

const NOT_RE2 = /\(\?<?[=!]|\\[1-9]/;

export function branchRegex(source: string): RegExp {
  // RE2's leading flag group (?i) is JavaScript's i flag.
  const caseless = source.startsWith('(?i)');
  const body = caseless ? source.slice(4) : source;
  if (NOT_RE2.test(body)) throw messageError(400, 'Regex is invalid');
  try {
    return new RegExp(body, caseless ? 'iu' : 'u');
  } catch {
    throw messageError(400, 'Regex is invalid');
  }
}
