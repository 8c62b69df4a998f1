// SSH public keys of the sandbox's users: the record, the fingerprints the key lookup matches, and the demo keys.
//
// Demo keys are not real curve points: the sandbox never verifies a signature, it only has to give each key the
// MD5 and SHA256 fingerprints an OpenSSH client would print for it, and those depend on the key's bytes alone.
import { createHash } from 'node:crypto';
import type { Store, User } from '../../core/store.js';
import { areaState } from '../../core/area.js';

export interface SshKey {
  id: number;
  user_id: number;
  title: string;
  /** The public key line: "ssh-ed25519 <base64 blob> <comment>". */
  key: string;
  created_at: Date;
}

/** The key's wire blob (the base64 second word of the key line). */
function blob(key: SshKey): Buffer {
  return Buffer.from(key.key.split(/\s+/)[1] ?? '', 'base64');
}

/** "aa:bb:…" as ssh-keygen -E md5 prints it, without the "MD5:" prefix (the form the service accepts). */
export function md5Fingerprint(key: SshKey): string {
  return createHash('md5').update(blob(key)).digest('hex').match(/../g)!.join(':');
}

/** "SHA256:<unpadded base64>" as ssh-keygen prints it; its '/' and '+' are why callers must URL-encode it. */
export function sha256Fingerprint(key: SshKey): string {
  return `SHA256:${createHash('sha256').update(blob(key)).digest('base64').replace(/=+$/, '')}`;
}

/** The key with this fingerprint, in either form (an MD5 one also with its "MD5:" prefix). */
export function findKeyByFingerprint(keys: readonly SshKey[], fingerprint: string): SshKey | undefined {
  if (fingerprint.startsWith('SHA256:')) return keys.find((key) => sha256Fingerprint(key) === fingerprint);
  const md5 = fingerprint.replace(/^MD5:/, '').toLowerCase();
  return keys.find((key) => md5Fingerprint(key) === md5);
}

/** An ed25519 key line whose 32 key bytes are derived from `seed`, so every sandbox has the same demo keys. */
function demoKeyLine(seed: string, comment: string): string {
  const part = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  const raw = createHash('sha256').update(`forgeops sandbox key ${seed}`).digest();
  return `ssh-ed25519 ${Buffer.concat([part(Buffer.from('ssh-ed25519')), part(raw)]).toString('base64')} ${comment}`;
}

const DAY = 24 * 60 * 60 * 1000;

const DEMO_KEYS: Array<{ user: string; title: string; created: number }> = [
  { user: 'alice', title: 'alice@laptop', created: 200 },
  { user: 'alice', title: 'alice@ci-runner', created: 90 },
  { user: 'bob', title: 'bob@desktop', created: 150 },
  { user: 'erin', title: 'erin@consulting', created: 20 },
];

export function seedSshKeys(store: Store, users: Map<string, User>, epoch: number): void {
  for (const spec of DEMO_KEYS) {
    const user = users.get(spec.user)!;
    sshKeysOf(store).push({
      id: store.nextId('ssh_key'),
      user_id: user.id,
      title: spec.title,
      key: demoKeyLine(spec.title, user.email),
      created_at: new Date(epoch - spec.created * DAY),
    });
  }
}

/** Users' SSH public keys. */
export const sshKeysOf = areaState('ssh_keys', (): SshKey[] => []);
