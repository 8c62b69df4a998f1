// Which host a URL sends to, read the way the service reads it (RFC 3986), and whether a browser-style (WHATWG) parser
// would read another: "https://hooks.slack.com\@evil.example/" is hooks.slack.com to one and evil.example to the other.
import { domainToASCII } from 'node:url';

/** Looks like an absolute web address (a browser would also read `https:\\host`, or one after leading spaces). */
const WEB_ADDRESS = /^[\x00-\x20]*https?:[\\/]{2}/i;

/** RFC 3986, appendix B: the authority is everything after "//" up to the first "/", "?" or "#"; a backslash is no delimiter. */
const RFC3986 = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)/i;

function normalise(host: string): string {
  let decoded = host;
  try {
    decoded = decodeURIComponent(host);
  } catch {
    // a stray % stays as it is
  }
  const lower = decoded.toLowerCase();
  // Only a name made of letters, digits, dots and hyphens is converted: domainToASCII parses as a browser does and
  // would cut "a.com\\.evil.example" at the backslash, the very difference this module exists to see.
  if (!/^[\p{L}\p{M}\p{N}.-]+$/u.test(lower)) return lower;
  return domainToASCII(lower) || lower;
}

/**
 * The host as the service parses the URL (RFC 3986: after the userinfo's "@", before the port), or undefined when
 * the text is not an http(s) URL it could parse at all.
 */
export function serviceHost(url: string): string | undefined {
  return serviceAuthority(url)?.host;
}

/** Scheme, host and port as the service reads them ("https://hooks.chat.example"), for showing where a URL sends. */
export function serviceOrigin(url: string): string | undefined {
  const parts = serviceAuthority(url);
  return parts && `${parts.scheme}://${parts.host}${parts.port ? `:${parts.port}` : ''}`;
}

function serviceAuthority(url: string): { scheme: string; host: string; port: string } | undefined {
  const match = RFC3986.exec(url);
  if (!match || !/^https?$/i.test(match[1])) return undefined;
  const authority = match[2];
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  const host = hostPort.startsWith('[')
    ? hostPort.slice(0, hostPort.indexOf(']') + 1)
    : hostPort.replace(/:[^:]*$/, '');
  const port = hostPort.slice(host.length + 1);
  const scheme = match[1].toLowerCase();
  const defaultPort = scheme === 'https' ? '443' : '80';
  return host === '' ? undefined : { scheme, host: normalise(host), port: port === defaultPort ? '' : port };
}

function browserHost(url: string): string | undefined {
  try {
    return new URL(url).hostname || undefined;
  } catch {
    return undefined;
  }
}

/**
 * For a web address that two kinds of parser read as going to different hosts (or that only one can read): both
 * readings, so the caller can refuse it by name. Undefined for anything else, ordinary addresses included.
 */
export function ambiguousHost(text: string): { browser: string; service: string } | undefined {
  if (!WEB_ADDRESS.test(text)) return undefined;
  const browser = browserHost(text);
  const service = serviceHost(text);
  if (browser === service) return undefined;
  return { browser: browser ?? '(unreadable)', service: service ?? '(unreadable)' };
}
