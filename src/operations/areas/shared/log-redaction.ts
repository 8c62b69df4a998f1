// Credentials in a CI job's log, redacted before anyone reads it: the service's own masking ([MASKED]) kept, key blocks
// (also cut over several lines), token formats of common services, bearer and basic credentials, JWTs, passwords in
// URLs, and assignments to a credential's name in any notation. Linear in the log's size.
import { cleanLogText } from './log-text.js';

/** A name that says its value is a credential: DB_PASSWORD, api_key, "secret", GITLAB_TOKEN, private-key. */
const SECRET_NAME =
  '[A-Za-z0-9_.-]{0,100}(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?key|credentials?)[A-Za-z0-9_.-]{0,100}';
/** A value as written after such a name: quoted (escapes inside), or a bare word up to a delimiter. */
const SECRET_VALUE = String.raw`("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[^\s"',;}]+)`;

/**
 * What looks like a credential in one line of text: the service's own masking ([MASKED]) is left as it is; key
 * blocks written on one line, token formats of common services, a PEM key in base64, bearer and basic
 * credentials, JWTs, passwords in URLs, and assignments to a credential's name in any notation (`PASSWORD=…`,
 * `export TOKEN=…`, YAML `password: …`, JSON `"api_key": "…"`, `'secret': '…'`, `--password …`).
 */
const CREDENTIALS: Array<[RegExp, string]> = [
  [
    /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/gm,
    '[redacted private key]',
  ],
  [/LS0tLS1CRUdJT[A-Za-z0-9+/=]*/g, '[redacted private key]'],
  [
    /\b(?:glpat|gldt|glrt|glptt|glcbt|glsoat|ghp|gho|ghu|ghs|ghr|github_pat|xox[abprs]|sk|sk_live|rk_live|npm)[-_][A-Za-z0-9_-]{12,}/g,
    '[redacted]',
  ],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, '[redacted]'],
  [/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, '[redacted]'],
  [/\b(Bearer|Basic|token)[ \t]+[A-Za-z0-9._~+/=-]{12,}/gi, '$1 [redacted]'],
  [/(\/\/[^/\s:@]+:)[^/\s@]+@/g, '$1[redacted]@'],
  // A name (matched from its first character only, and of bounded length: a long run of name characters costs one
  // bounded try, not one per position), its closing quote if quoted, then = or :, then the value.
  [
    new RegExp(String.raw`((?<![A-Za-z0-9_.-])${SECRET_NAME}["']?[ \t]*[:=][ \t]*)${SECRET_VALUE}`, 'gi'),
    '$1[redacted]',
  ],
  // A command-line flag: --password hunter2, --token=abc.
  [new RegExp(`((?<![A-Za-z0-9_-])--${SECRET_NAME}[ =])${SECRET_VALUE}`, 'gi'), '$1[redacted]'],
];

/** Text with every credential in it redacted; no pattern crosses or removes a line break. */
function redactText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of CREDENTIALS) {
    out = out.replace(pattern, (match: string, ...args: unknown[]) => {
      // What the service already masked stays as the service wrote it.
      if (match.includes('[MASKED]')) return match;
      const groups = args.slice(0, -2);
      return replacement.replace(/\$(\d)/g, (_, i: string) => String(groups[Number(i) - 1] ?? ''));
    });
  }
  return out;
}

const KEY_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;
const KEY_END = /-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;
/** Any armoured block's first line: a run of base64 right after one that is not a private key is not one either. */
const OTHER_BEGIN = /-----BEGIN (?![A-Z0-9 ]*PRIVATE KEY)[A-Z0-9 ]+-----/;
/** A line of a key's body: base64 alone on its line (the last one may be short, or a PGP checksum "=AbCd"). */
const KEY_BODY = /^\s*=?[A-Za-z0-9+/]+={0,2}\s*$/;
/** A full-width body line (PEM 64, OpenSSH 70, PGP 64–76): long, and not a hexadecimal digest. */
const KEY_FULL_BODY = /^\s*[A-Za-z0-9+/]{56,80}={0,2}\s*$/;
/** A header inside an encrypted PEM or a PGP block (Proc-Type: 4,ENCRYPTED; Version: …). */
const KEY_HEADER = /^\s*[A-Za-z][A-Za-z-]*: /;

const isFullBody = (line: string) => KEY_FULL_BODY.test(line) && /[g-zG-Z+/]/.test(line);

/**
 * The line ranges (0-based, inclusive) that are private keys: a BEGIN line and what follows it up to its END line
 * (or up to the first line that cannot be part of a key); and a key whose BEGIN line is not in the text (a log's
 * tail starting inside one): full-width body lines (and a short last one) followed by an END line, or a run of
 * two or more of them, or an END line with the short body line before it. Each line is looked at once or twice.
 */
function keyBlocks(lines: readonly string[]): Array<[number, number]> {
  const blocks: Array<[number, number]> = [];
  let free = 0;
  let i = 0;
  const add = (from: number, to: number) => {
    blocks.push([from, to]);
    free = to + 1;
    i = to + 1;
  };
  while (i < lines.length) {
    const line = lines[i];
    if (KEY_BEGIN.test(line) && !KEY_END.test(line.slice(line.search(KEY_BEGIN)))) {
      let j = i + 1;
      while (
        j < lines.length &&
        !KEY_END.test(lines[j]) &&
        (KEY_BODY.test(lines[j]) || KEY_HEADER.test(lines[j]) || lines[j].trim() === '')
      )
        j++;
      add(i, j < lines.length && KEY_END.test(lines[j]) ? j : j - 1);
      continue;
    }
    if (isFullBody(line)) {
      let j = i;
      while (j < lines.length && isFullBody(lines[j])) j++;
      const full = j - i;
      if (j < lines.length && KEY_BODY.test(lines[j]) && !isFullBody(lines[j])) j++;
      const ended = j < lines.length && KEY_END.test(lines[j]) && !KEY_BEGIN.test(lines[j]);
      // The body of a certificate or a public key, whose BEGIN line is right before it, is no secret.
      if (i > 0 && OTHER_BEGIN.test(lines[i - 1])) i = j;
      else if (ended) add(i, j);
      else if (full >= 2) add(i, j - 1);
      else i = j;
      continue;
    }
    if (KEY_END.test(line) && !KEY_BEGIN.test(line)) {
      add(i > free && KEY_BODY.test(lines[i - 1]) ? i - 1 : i, i);
      continue;
    }
    i++;
  }
  return blocks;
}

/**
 * The lines with credentials redacted: each private key (see keyBlocks) becomes one line, whatever preceded its
 * BEGIN on that line kept; then every line's own credentials. `lineOf[n]` is the new number of old line n (1-based).
 */
export function redactLines(lines: readonly string[]): { lines: string[]; lineOf?: Int32Array } {
  const blocks = keyBlocks(lines);
  if (blocks.length === 0) return { lines: redactEach(lines) };
  const out: string[] = [];
  const lineOf = new Int32Array(lines.length + 1);
  let next = 0;
  for (const [from, to] of blocks) {
    for (; next < from; next++) {
      out.push(lines[next]);
      lineOf[next + 1] = out.length;
    }
    const first = lines[from];
    const begin = first.search(KEY_BEGIN);
    out.push(`${begin > 0 ? first.slice(0, begin) : ''}${REDACTED_KEY}`);
    for (; next <= to; next++) lineOf[next + 1] = out.length;
  }
  for (; next < lines.length; next++) {
    out.push(lines[next]);
    lineOf[next + 1] = out.length;
  }
  return { lines: redactEach(out), lineOf };
}

const REDACTED_KEY = '[redacted private key]';

/** Each line's credentials redacted, in one pass of each pattern over the whole text (one call per line costs more). */
function redactEach(lines: readonly string[]): string[] {
  if (lines.length === 0) return [];
  const out = redactText(lines.join('\n')).split('\n');
  if (out.length !== lines.length) throw new Error('redaction changed the number of lines');
  return out;
}

/** Free text with every credential redacted, cleaned first (an escape sequence inside a token must not save it). */
export function redactLogText(text: string): string {
  return redactLines(cleanLogText(text).split('\n')).lines.join('\n');
}

// ---- Reading ---------------------------------------------------------------------------------------------------
