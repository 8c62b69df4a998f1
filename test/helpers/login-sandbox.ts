// A sandbox on a manual clock that knows the forgeops CLI application, a fresh credentials file per test, and the
// device-grant `forgeops login` played against it: the set-up the sign-in unit tests share.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type Config, parseConfig } from '../../src/config.js';
import { CredentialsFile } from '../../src/identity/credentials-file.js';
import { type LoginOptions, login } from '../../src/identity/login-commands.js';
import { SANDBOX_CLIENT_IDS, sandboxCliApplication } from '../../src/runtime.js';
import { ManualClock } from '../../src/sandbox/core/clock.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { approveDeviceCode } from './sign-in-person.js';

export interface LoginSandbox {
  readonly sandbox: Sandbox;
  readonly clock: ManualClock;
  /** This test's temporary folder; the credentials file lives in its `forgeops` folder. */
  readonly dir: string;
  readonly file: CredentialsFile;
  /** The configuration of a forgeops pointed at the sandbox with the CLI's client id, plus `extra` variables. */
  config(extra?: Record<string, string>): Config;
}

/**
 * Registers the hooks of the calling file: one sandbox for the file, a credentials file under a new temporary
 * folder (named from `tempPrefix`) for each test. The state lives in the returned object, so files never share it.
 */
export function useLoginSandbox(tempPrefix: string): LoginSandbox {
  let sandbox: Sandbox | undefined;
  let clock: ManualClock | undefined;
  let dir: string | undefined;
  let file: CredentialsFile | undefined;
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the login sandbox's ${what} is only there inside a test`);
    return value;
  };
  beforeAll(async () => {
    clock = new ManualClock();
    sandbox = await startSandbox({ clock, applications: [sandboxCliApplication()] });
  });
  afterAll(() => sandbox?.close());
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), tempPrefix));
    file = new CredentialsFile(join(dir, 'forgeops', 'credentials.json'));
  });
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get sandbox() {
      return ready(sandbox, 'sandbox');
    },
    get clock() {
      return ready(clock, 'clock');
    },
    get dir() {
      return ready(dir, 'folder');
    },
    get file() {
      return ready(file, 'credentials file');
    },
    config: (extra = {}) =>
      parseConfig({
        CODEHOST_URL: ready(sandbox, 'sandbox').url,
        FORGEOPS_CLI_CLIENT_ID: SANDBOX_CLIENT_IDS.cli,
        ...extra,
      }),
  };
}

/** What the person and the clock do at each wait between polls, given the user code `login` printed. */
export type DeviceWait = (ms: number, userCode: string) => Promise<void>;

/**
 * `forgeops login` in device mode against the login sandbox; `wait` plays each wait between polls. Gives the attempt
 * (its rejection already observed, so a test may await it later) and what the command printed so far.
 */
export function loginByDevice(at: LoginSandbox, wait: DeviceWait, options: LoginOptions = {}) {
  let printed = '';
  const attempt = login(
    at.config(),
    { mode: 'device', ...options },
    {
      out: (text) => {
        printed += text;
      },
      file: at.file,
      sleep: (ms) => wait(ms, /enter the code: (\S+)/.exec(printed)?.[1] as string),
    },
  );
  attempt.catch(() => undefined);
  return { attempt, printed: () => printed };
}

/** The wait of a person who answers the code at the first poll (as `username`, with `decision`), then the clock. */
export const answerAtFirstPoll =
  (at: LoginSandbox, username = 'bob', decision: 'authorize' | 'deny' = 'authorize'): DeviceWait =>
  async (ms, userCode) => {
    await approveDeviceCode(at.sandbox, userCode, username, decision);
    at.clock.advance(ms);
  };

/** A command's io writing into a string a test reads with `text()` and empties with `clear()`. */
export function capturedIo(file: CredentialsFile) {
  let out = '';
  return {
    io: {
      out: (text: string) => {
        out += text;
      },
      file,
    },
    text: () => out,
    clear: () => {
      out = '';
    },
  };
}
