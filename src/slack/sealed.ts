// Service tokens at rest: AES-256-GCM under a key derived from FORGEOPS_SECRET, bound to the Slack user they belong to.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export class Sealer {
  private readonly key: Buffer;

  constructor(secret: string) {
    // HKDF, not the secret itself: the key is for this one purpose, and a different purpose later gets its own.
    this.key = Buffer.from(hkdfSync('sha256', secret, 'forgeops', 'slack service token v1', 32));
  }

  /** Encrypts `plain`; `owner` (e.g. "T1:U1") is authenticated too, so a sealed token copied to another user's record fails to open. */
  seal(plain: string, owner: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(owner));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [
      VERSION,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      data.toString('base64url'),
    ].join('.');
  }

  /** The plain text, or undefined when the box was altered, belongs to someone else, or the secret changed. */
  open(sealed: string, owner: string): string | undefined {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || data === undefined) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(owner));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
