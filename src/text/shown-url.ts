// URLs as they may be shown (banner, doctor, /readyz, logs, errors): the user name and password of one are never shown.

/** A scheme, "//", then the userinfo: everything up to the last "@" before the authority ends (as WHATWG URL reads it). */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi;

/** Text with the user name and password of every URL in it replaced by '***' ("https://***@code.example.com"). */
export function withoutCredentials(text: string): string {
  return text.replace(USERINFO, '$1***@');
}

/**
 * A value meant to be a URL, to quote in an error about it: without its credentials; when it is too broken to tell
 * where they end ("user:pa/ss@host"), without anything before its last '@'.
 */
export function quotedUrl(value: string): string {
  const cleaned = withoutCredentials(value);
  const at = cleaned.lastIndexOf('@');
  return at === -1 || cleaned.slice(0, at + 1).endsWith('://***@') ? cleaned : `***${cleaned.slice(at)}`;
}
