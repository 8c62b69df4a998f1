// Reading a private certificate authority's PEM file: the certificates to trust, or the reason it cannot be used.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// node:tls only when a CA file is named: loading it costs a stdio server about 6 ms of its start, and a service on
// plain HTTP (the sandbox) never needs it.
const requireBuiltin = createRequire(import.meta.url);

/** A CA file that cannot be used; `reason` completes "the file '…' …", so each front end can name its own setting. */
export class CaFileError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`caFile '${path}' ${reason}`);
    this.name = 'CaFileError';
  }
}

/** The public roots plus the file's certificates: Node's `ca` option replaces the roots, and a private CA adds to them. */
export function readCaFile(path: string): string[] {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a directory'
            : (error as Error).message;
    throw new CaFileError(path, `cannot be read: ${why}`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new CaFileError(path, 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)');
  const { rootCertificates } = requireBuiltin('node:tls') as typeof import('node:tls');
  return [...rootCertificates, pem];
}
