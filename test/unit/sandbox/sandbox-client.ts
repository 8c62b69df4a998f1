// A small fetch client for the sandbox core tests: raw paths and query strings, tokens by role, JSON or form bodies.
import type { Sandbox } from '../../../src/sandbox/server.js';

export type Role = keyof Sandbox['tokens'] | 'anonymous';

export interface RequestOptions {
  /** Whose PRIVATE-TOKEN to send (default developer); 'anonymous' sends none. */
  as?: Role;
  /** Sent as the PRIVATE-TOKEN as is (overrides `as`). */
  token?: string;
  json?: unknown;
  /** An x-www-form-urlencoded body, written raw ('a=1&b[]=2'). */
  form?: string;
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  data: any;
}

/** Calls `{url}/api/v4{path}`; path carries its own (already encoded) query string. */
export async function api(
  sandbox: Sandbox,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Answer> {
  return call(sandbox, method, `/api/v4${path}`, options);
}

/** Calls any path of the sandbox's origin. */
export async function call(
  sandbox: Sandbox,
  method: string,
  rawPath: string,
  options: RequestOptions = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  const role = options.as ?? 'developer';
  if (options.token !== undefined) headers['PRIVATE-TOKEN'] = options.token;
  else if (role !== 'anonymous') headers['PRIVATE-TOKEN'] = sandbox.tokens[role];
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = options.form;
  }
  const response = await fetch(`${sandbox.url}${rawPath}`, { method, headers, body });
  const text = await response.text();
  let data: any;
  try {
    data = text === '' ? undefined : JSON.parse(text);
  } catch {
    data = undefined;
  }
  return { status: response.status, headers: response.headers, text, data };
}

/** The URL of each rel in a Link header. */
export function parseLink(header: string | null): Record<string, string> {
  const links: Record<string, string> = {};
  for (const part of (header ?? '').split(',')) {
    const match = /<([^>]+)>;\s*rel="([^"]+)"/.exec(part.trim());
    if (match) links[match[2]] = match[1];
  }
  return links;
}

/** A job as the REST API answers it, with the fields the runner and time tests read. */
export interface JobAnswer {
  id: number;
  name: string;
  stage: string;
  status: string;
  failure_reason?: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  duration: number | null;
  queued_duration: number | null;
  pipeline: { id: number };
}

/** The demo's culprit on acme/web's main (bob's commit that turned it red). */
export const DEMO_CULPRIT = "Show order dates in the store's time zone";

/**
 * Root reverts the demo's culprit on acme/web's main: its pipeline passes and reaches production, which waits. Answers
 * the revert commit's SHA.
 */
export async function revertDemoCulprit(sandbox: Sandbox): Promise<string> {
  const web = `/projects/${encodeURIComponent('acme/web')}`;
  const commits = (await api(sandbox, 'GET', `${web}/repository/commits?ref_name=main&per_page=100`)).data;
  const culprit = (commits as Array<{ id: string; title: string }>).find((c) => c.title === DEMO_CULPRIT);
  if (!culprit) throw new Error(`acme/web's main holds no commit "${DEMO_CULPRIT}"`);
  const reverted = await api(sandbox, 'POST', `${web}/repository/commits/${culprit.id}/revert`, {
    as: 'admin',
    json: { branch: 'main' },
  });
  if (reverted.status !== 201) throw new Error(`reverting the culprit answered ${reverted.status}`);
  return (reverted.data as { id: string }).id;
}
