// Test harness for approvals: the human's side of the approval page (open it, answer it), a pipeline to delete, and
// the call an approval ticket binds.
import { fetch } from 'undici';
import { expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { HttpClient } from '../../src/http/client.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { connectInMemory } from './mcp.js';

export const PROJECT = 'acme/web';

/** What the human sees: the page's status, HTML, headers and the form token it carries. */
export async function openPage(link: string) {
  const response = await fetch(link);
  const html = await response.text();
  return {
    status: response.status,
    html,
    headers: response.headers,
    nonce: /name="nonce" value="([^"]+)"/.exec(html)?.[1],
  };
}

/** A form post to the page, from the page's own Origin unless the test forges other headers. */
export async function answerPage(
  link: string,
  fields: Record<string, string>,
  headers: Record<string, string> = { origin: new URL(link).origin },
) {
  const response = await fetch(link, {
    method: 'POST',
    body: new URLSearchParams(fields),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
  return { status: response.status, text: await response.text() };
}

/** A fresh pipeline of PROJECT on main, created through the test's own MCP client `mcp`; its id. */
export async function createPipeline(mcp: Client): Promise<number> {
  const created = await mcp.callTool({ name: 'create_pipeline', arguments: { id: PROJECT, ref: 'main' } });
  expect(created.isError).toBeFalsy();
  return (created.structuredContent as { id: number }).id;
}

/** A fresh pipeline of PROJECT, made by a client that needs no approval for it. */
export async function newPipeline(client: HttpClient): Promise<number> {
  const mcp = await connectInMemory({ client });
  const id = await createPipeline(mcp.client);
  await mcp.close();
  return id;
}

/** The DELETE requests the sandbox got for one pipeline: how many times an approved call ran. */
export function deletesOf(sandbox: Sandbox, pipeline: number) {
  return sandbox.requests.all().filter((r) => r.method === 'DELETE' && r.path.includes(`/pipelines/${pipeline}`));
}

/** A fresh branch `name` of PROJECT from main, made by `client` (the test's own set-up, no approval asked). */
export async function newBranch(client: HttpClient, name: string): Promise<void> {
  const response = await client.request({
    method: 'POST',
    path: `/projects/${encodeURIComponent(PROJECT)}/repository/branches`,
    query: { branch: name, ref: 'main' },
    idempotent: false,
  });
  if (response.status !== 201) throw new Error(`branch ${name} was not made: ${response.status}`);
}

/** How many times the sandbox was asked to delete the branch: how many times an approved call ran. */
export function branchDeletes(sandbox: Sandbox, branch: string): number {
  return sandbox.requests
    .all()
    .filter((r) => r.method === 'DELETE' && r.path.endsWith(`/repository/branches/${branch}`)).length;
}

/** The call the approval stores' tests issue tickets for: T1:U1 in channel C1 deletes pipeline `pipelineId`. */
export function deletePipelineCall(pipelineId = 7) {
  return {
    operation: 'delete_pipeline',
    input: { id: PROJECT, pipeline_id: pipelineId },
    requester: 'T1:U1',
    place: 'C1',
  };
}
