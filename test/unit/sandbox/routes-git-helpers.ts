// Shared set-up for the repository, file and commit route tests: one sandbox per test file and a small
// fetch client that speaks the service's conventions (PRIVATE-TOKEN, encoded path values, JSON or form bodies).
import { afterAll, beforeAll } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';

export type Role = keyof Sandbox['tokens'] | 'anonymous';

export interface CallOptions {
  as?: Role;
  query?: Record<string, string | string[]>;
  json?: unknown;
  form?: [string, string][];
}

export interface CallResult {
  status: number;
  headers: Headers;
  body: Buffer;
  /** The body parsed as JSON (undefined when empty). */
  data: any;
}

/** Encodes one path value the way the service expects (`group/app` → `group%2Fapp`). */
export const enc = encodeURIComponent;

/** Starts a seeded sandbox for the test file; call() talks to it as the developer unless told otherwise. */
export function useSandbox(): {
  sandbox: () => Sandbox;
  call: (method: string, path: string, options?: CallOptions) => Promise<CallResult>;
} {
  let sandbox: Sandbox | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox();
  }, 30_000);
  afterAll(async () => {
    await sandbox?.close();
  });
  const current = () => {
    if (!sandbox) throw new Error('sandbox not started');
    return sandbox;
  };
  async function call(method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
    const box = current();
    const url = new URL(`${box.url}/api/v4${path}`);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(key, item);
    }
    const headers: Record<string, string> = {};
    const role = options.as ?? 'developer';
    if (role !== 'anonymous') headers['PRIVATE-TOKEN'] = box.tokens[role];
    let body: string | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    }
    const response = await fetch(url, { method, headers, body });
    const bytes = Buffer.from(await response.arrayBuffer());
    const type = response.headers.get('content-type') ?? '';
    return {
      status: response.status,
      headers: response.headers,
      body: bytes,
      data: bytes.length > 0 && type.includes('json') ? JSON.parse(bytes.toString('utf8')) : undefined,
    };
  }
  return { sandbox: current, call };
}

/**
 * The JSON body of a commit that creates one file on `branch`, started from main, with the message 'm'; `fields` adds
 * or overrides the rest (commit_message, start_project, force).
 */
export function newFileCommit(
  branch: string,
  file: { file_path: string; content: string; encoding?: 'base64' },
  fields: Record<string, unknown> = {},
) {
  return { branch, start_branch: 'main', commit_message: 'm', actions: [{ action: 'create', ...file }], ...fields };
}

export const WEB = enc('acme/web');
export const PAYMENTS = enc('acme/platform/payments-api');
