// Addresses a server deals in: its own as a browser reaches it, its clients' as it compares them, and the trusted
// proxies an operator lists (FORGEOPS_TRUSTED_PROXIES).
import { BlockList, isIP } from 'node:net';

/** An address as one caller: an IPv4 client seen through an IPv6 socket (::ffff:10.0.0.1) is the same as 10.0.0.1. */
export function normaliseAddress(address: string): string {
  const lower = address.trim().toLowerCase();
  return lower.startsWith('::ffff:') && isIP(lower.slice(7)) === 4 ? lower.slice(7) : lower;
}

/** Addresses and CIDR ranges (10.0.0.0/8, fd00::/8) as written in FORGEOPS_TRUSTED_PROXIES; throws on anything else. */
export function trustedProxyList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(normaliseAddress(address));
    if (!family || extra !== undefined || (bits !== undefined && !/^\d{1,3}$/.test(bits))) {
      throw new Error(`'${entry}' is not an IP address or a CIDR range such as 10.0.0.0/8`);
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(normaliseAddress(address), type);
    else list.addSubnet(normaliseAddress(address), Number(bits), type);
  }
  return list;
}

/**
 * The address a browser on this machine reaches a forgeops listening on host:port by: a wildcard address is reached
 * on 127.0.0.1. With port 0 (a free port, known only once listening) the port is left out: the sandbox matches a
 * loopback IP redirect URI on any port (RFC 8252 §7.3), so the callback still matches on 127.0.0.1.
 */
export function forgeopsUrl(host: string, port: number): string {
  const reached = host === '' || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const hostPart = reached.includes(':') ? `[${reached}]` : reached;
  return port === 0 ? `http://${hostPart}` : `http://${hostPart}:${port}`;
}
