// Fetching a Client ID Metadata Document: an outside URL a stranger names, so it is fetched with care — https only,
// never to a private, loopback or link-local address (checked on the address actually connected to, so DNS cannot
// swap it after the check), no redirects, a few seconds and a few kilobytes at most.
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { OAuthError } from './oauth-http.js';

export const CIMD_MAX_BYTES = 5 * 1024;
export const CIMD_TIMEOUT_MS = 5_000;

/** Where a stranger's URL must never lead forgeops: this machine, its network, cloud metadata services. */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 127],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  // An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 one it is. (A ::ffff:0:0/96 rule would
  // not do: BlockList matches every IPv4 address against it.)
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1];
  const plain = mapped ?? address;
  const family = isIP(plain);
  if (family === 0) return true;
  return PRIVATE.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}

export interface MetadataFetchOptions {
  /** FORGEOPS_OAUTH_ALLOW_PRIVATE_CLIENT_URLS: http and private addresses allowed (tests, a closed network). */
  allowPrivate: boolean;
  timeoutMs?: number;
  maxBytes?: number;
}

/** A DNS lookup that refuses private answers: undici connects only to what it returns. */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as Array<{ address: string; family: number }>;
      const bad = list.find((a) => !allowPrivate && isPrivateAddress(a.address));
      if (bad || list.length === 0) {
        return callback(
          Object.assign(new Error(`${hostname} resolves to a private address`), { code: 'EPRIVATE' }),
          '',
          0,
        );
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: unknown) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

/** The client_id URL as the metadata document's own rules want it: https, a path, no fragment, no credentials. */
export function checkClientIdUrl(clientId: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw new OAuthError(400, 'invalid_client', 'client_id is neither registered here nor a URL');
  }
  const httpAllowed = allowPrivate && url.protocol === 'http:';
  if (url.protocol !== 'https:' && !httpAllowed) {
    throw new OAuthError(400, 'invalid_client', 'a client_id URL must be https');
  }
  if (url.pathname === '/' || url.hash || url.username || url.password) {
    throw new OAuthError(400, 'invalid_client', 'a client_id URL needs a path and no fragment or credentials');
  }
  const bare = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(bare) && isPrivateAddress(bare)) {
    throw new OAuthError(400, 'invalid_client', 'a client_id URL may not name a private or loopback address');
  }
  return url;
}

export function createMetadataFetcher(options: MetadataFetchOptions) {
  const timeoutMs = options.timeoutMs ?? CIMD_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? CIMD_MAX_BYTES;
  const agent = new Agent({
    connect: { lookup: guardedLookup(options.allowPrivate), timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  return {
    /** The document as JSON, or an OAuthError naming what was wrong with it. */
    async fetch(url: URL): Promise<unknown> {
      const bare = url.hostname.replace(/^\[|\]$/g, '');
      if (!options.allowPrivate && isIP(bare) && isPrivateAddress(bare)) {
        throw new OAuthError(400, 'invalid_client', 'a client_id URL may not name a private or loopback address');
      }
      let text: string;
      try {
        const answer = await request(url, {
          dispatcher: agent,
          method: 'GET',
          headers: { accept: 'application/json' },
          maxRedirections: 0,
          signal: AbortSignal.timeout(timeoutMs),
        } as Parameters<typeof request>[1]);
        if (answer.statusCode !== 200) {
          await answer.body.dump();
          throw new OAuthError(400, 'invalid_client', `the client metadata document answered ${answer.statusCode}`);
        }
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of answer.body) {
          size += (chunk as Buffer).length;
          if (size > maxBytes) {
            answer.body.destroy();
            throw new OAuthError(
              400,
              'invalid_client',
              `the client metadata document is larger than ${maxBytes} bytes`,
            );
          }
          chunks.push(chunk as Buffer);
        }
        text = Buffer.concat(chunks).toString('utf8');
      } catch (error) {
        if (error instanceof OAuthError) throw error;
        const why =
          (error as { code?: string }).code === 'EPRIVATE'
            ? 'it resolves to a private address'
            : 'it could not be fetched';
        throw new OAuthError(400, 'invalid_client', `the client metadata document was refused: ${why}`);
      }
      try {
        return JSON.parse(text);
      } catch {
        throw new OAuthError(400, 'invalid_client', 'the client metadata document is not JSON');
      }
    },
    close: () => agent.close(),
  };
}
