// The terminal's sign-ins, one per code host, in a file only its owner can read ($XDG_CONFIG_HOME/forgeops/credentials.json).
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** What one sign-in keeps: enough to use, refresh and revoke it, and to say who it is without asking the host. */
export interface SignIn {
  /** The code host's base URL, as the key (hostKey). */
  host: string;
  /** The public application the tokens were issued to; a refresh or a revocation must name the same one. */
  client_id: string;
  access_token: string;
  refresh_token?: string;
  /** Epoch ms, by this machine's clock, when the access token stops working; undefined when the host said nothing. */
  expires_at?: number;
  scopes: string[];
  account: { id: number; username: string; name?: string };
  /** Epoch ms of the sign-in (not of the last refresh). */
  signed_in_at: number;
}

interface FileShape {
  version: 1;
  hosts: Record<string, SignIn>;
}

/**
 * A file anyone else can read or write, or one that is not a file we wrote: refused rather than used, since its
 * tokens act as the person.
 */
export class CredentialsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialsFileError';
  }
}

/** The key of a code host: its base URL without a trailing slash or a copied '/api/v4'. */
export function hostKey(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.hash = '';
  url.search = '';
  url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/api\/v4$/, '');
  return url.href.replace(/\/+$/, '');
}

/**
 * Where the file lives: $XDG_CONFIG_HOME/forgeops/credentials.json, $HOME/.config/forgeops/… without it (the XDG
 * base directory default, also on macOS, where a terminal tool's dotfiles are expected there too).
 */
export function credentialsPath(env: Record<string, string | undefined> = process.env): string {
  const configHome = env.XDG_CONFIG_HOME?.trim() ? env.XDG_CONFIG_HOME : join(env.HOME?.trim() || homedir(), '.config');
  return join(configHome, 'forgeops', 'credentials.json');
}

/** How long a lock may be held before another process takes it as left by a process that died. */
export const STALE_LOCK_MS = 30_000;
const LOCK_RETRY_MS = 50;

export class CredentialsFile {
  constructor(readonly path: string = credentialsPath()) {}

  /** The sign-ins by host; none when there is no file yet. Refuses a file others can read or write. */
  async readAll(): Promise<Record<string, SignIn>> {
    let text: string;
    try {
      await this.checkMode();
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    let parsed: FileShape;
    try {
      parsed = JSON.parse(text) as FileShape;
    } catch {
      throw new CredentialsFileError(`${this.path} is not valid JSON; remove it and sign in again with forgeops login`);
    }
    if (parsed?.version !== 1 || typeof parsed.hosts !== 'object' || parsed.hosts === null)
      throw new CredentialsFileError(
        `${this.path} is not a forgeops credentials file (version 1); remove it and sign in again`,
      );
    return parsed.hosts;
  }

  async read(host: string): Promise<SignIn | undefined> {
    return (await this.readAll())[hostKey(host)];
  }

  /** Stores (or replaces) one host's sign-in; the file is replaced whole, so a reader never sees half of it. */
  async write(signIn: SignIn): Promise<void> {
    const hosts = await this.readAll();
    hosts[hostKey(signIn.host)] = { ...signIn, host: hostKey(signIn.host) };
    await this.replace(hosts);
  }

  /** Removes one host's sign-in; says whether there was one. */
  async remove(host: string): Promise<boolean> {
    const hosts = await this.readAll();
    const key = hostKey(host);
    if (!(key in hosts)) return false;
    delete hosts[key];
    await this.replace(hosts);
    return true;
  }

  /**
   * Runs `critical` holding the lock file beside the credentials (created with O_EXCL): a refresh rotates both tokens,
   * so two processes refreshing at once would leave one of them with a dead pair. A lock older than STALE_LOCK_MS
   * was left by a process that died and is taken over. `waitMs` bounds the wait.
   */
  async withLock<T>(critical: () => Promise<T>, waitMs = STALE_LOCK_MS + 5_000): Promise<T> {
    await this.ensureDirectory();
    const lock = `${this.path}.lock`;
    const until = Date.now() + waitMs;
    for (;;) {
      try {
        const fd = openSync(lock, 'wx', 0o600);
        writeSync(fd, `${process.pid} ${new Date().toISOString()}\n`);
        closeSync(fd);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const age = await stat(lock).then(
          (s) => Date.now() - s.mtimeMs,
          () => 0,
        );
        if (age > STALE_LOCK_MS) {
          await unlink(lock).catch(() => undefined);
          continue;
        }
        if (Date.now() > until)
          throw new CredentialsFileError(
            `${lock} has been held for ${Math.round(age / 1000)} s by another forgeops; remove it if no forgeops is signing in`,
          );
        await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
      }
    }
    try {
      return await critical();
    } finally {
      await unlink(lock).catch(() => undefined);
    }
  }

  private async ensureDirectory(): Promise<void> {
    const directory = dirname(this.path);
    await mkdir(directory, { recursive: true, mode: 0o700 });
  }

  /** Written to a temporary file (0600) in the same directory, flushed, then renamed over the old one. */
  private async replace(hosts: Record<string, SignIn>): Promise<void> {
    await this.ensureDirectory();
    const temporary = `${this.path}.${process.pid}.${Date.now()}.tmp`;
    const body: FileShape = { version: 1, hosts };
    try {
      const fd = openSync(temporary, 'wx', 0o600);
      try {
        writeSync(fd, `${JSON.stringify(body, null, 2)}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      // The umask could only narrow 0600, but a file left by an older tool must not keep wider rights.
      await chmod(temporary, 0o600);
      await rename(temporary, this.path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  private async checkMode(): Promise<void> {
    const info = await stat(this.path);
    if (!info.isFile()) throw new CredentialsFileError(`${this.path} is not a regular file`);
    // Windows has no such mode bits; there the file is under the user's profile.
    if (process.platform === 'win32') return;
    if ((info.mode & 0o077) !== 0) {
      const mode = (info.mode & 0o777).toString(8).padStart(3, '0');
      throw new CredentialsFileError(
        `${this.path} can be read or written by others (mode ${mode}); its tokens act as you. Fix it with: chmod 600 ${this.path} (and check who else could have read it)`,
      );
    }
    if (typeof process.getuid === 'function' && info.uid !== process.getuid())
      throw new CredentialsFileError(`${this.path} belongs to another user (uid ${info.uid}); it is not used`);
  }
}
