// Prompts, resources, completions and logging of our MCP server, driven by the SDK's client against the sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EmptyResultSchema,
  LoggingMessageNotificationSchema,
  McpError,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { FILE_URI_TEMPLATE, MAX_RESOURCE_BYTES, fileUri } from '../../src/mcp/resources.js';
import { MAX_COMPLETION_VALUES, MAX_CONCURRENT_COMPLETIONS } from '../../src/mcp/completions.js';
import type { ApiTransport } from '../../src/http/types.js';
import { connectInMemory, resultText, useSandbox } from '../helpers/mcp.js';
import { eventually } from '../safety/mcp-harness.js';
import { rejectionOf } from '../helpers/rejection.js';

const env = useSandbox();
const PROJECT = 'acme/web';

let session: Awaited<ReturnType<typeof connectInMemory>>;
beforeAll(async () => {
  session = await connectInMemory({ client: env.client });
});
afterAll(async () => {
  await session?.close();
});

/** The text of every message of a prompt, joined. */
function promptText(result: { messages: Array<{ content: { type: string; text?: string } }> }): string {
  return result.messages.map((m) => m.content.text ?? '').join('\n');
}

const rejection = (promise: Promise<unknown>) => rejectionOf(promise, McpError);

describe('capabilities', () => {
  it('announces prompts, resources, completions and logging beside tools', () => {
    const capabilities = session.client.getServerCapabilities();
    expect(capabilities).toMatchObject({ tools: {}, prompts: {}, resources: {}, completions: {}, logging: {} });
    // No subscriptions without a watch hub to hear the changes (status-resource tests cover a session with one).
    expect(capabilities?.resources?.subscribe).toBeUndefined();
  });
});

describe('prompts', () => {
  it('lists the two prompts with their arguments', async () => {
    const { prompts } = await session.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['triage_failed_pipeline', 'draft_release_notes']);
    const triage = prompts[0];
    expect(triage.arguments?.map((a) => [a.name, a.required])).toEqual([
      ['project', true],
      ['pipeline_id', false],
      ['username', false],
    ]);
    expect(prompts.every((p) => p.description && p.title)).toBe(true);
  });

  it('triage without pipeline_id picks the latest failed pipeline and names the tools to use', async () => {
    const failed = await session.client.callTool({
      name: 'list_pipelines',
      arguments: { id: PROJECT, status: 'failed', per_page: 1 },
    });
    const latest = (failed.structuredContent as { items: Array<{ id: number; sha: string }> }).items[0];
    const result = await session.client.getPrompt({ name: 'triage_failed_pipeline', arguments: { project: PROJECT } });
    const text = promptText(result);
    expect(result.messages[0].role).toBe('user');
    expect(text).toContain(`Triage pipeline #${latest.id} of project ${PROJECT}`);
    expect(text).toContain('"status":"failed"');
    expect(text).toContain(`get_commit_diff {"id":"${PROJECT}","sha":"${latest.sha}"}`);
    expect(text).toMatch(/untrusted data from the service/);
  });

  it('triage of a named pipeline reads that one; a non-number is refused by name', async () => {
    const result = await session.client.getPrompt({
      name: 'triage_failed_pipeline',
      arguments: { project: PROJECT, pipeline_id: '1' },
    });
    expect(promptText(result)).toContain(`Triage pipeline #1 of project ${PROJECT}`);
    const bad = await rejection(
      session.client.getPrompt({
        name: 'triage_failed_pipeline',
        arguments: { project: PROJECT, pipeline_id: 'latest' },
      }),
    );
    expect(bad.message).toMatch(/pipeline_id must be a pipeline number/);
  });

  it('triage for a user with no failed pipeline says so instead of inventing one', async () => {
    const result = await session.client.getPrompt({
      name: 'triage_failed_pipeline',
      arguments: { project: PROJECT, username: 'carol' },
    });
    expect(promptText(result)).toMatch(/has no failed pipeline triggered by carol/);
  });

  it('release notes embed the commits between the refs, fenced as data', async () => {
    const result = await session.client.getPrompt({
      name: 'draft_release_notes',
      arguments: { project: PROJECT, from: 'v1.0.0', to: 'v1.1.0' },
    });
    const text = promptText(result);
    expect(text).toContain('Add product search');
    expect(text).not.toContain('Initial commit');
    expect(text).toMatch(/~~~~\n- [0-9a-f]{8} /);
    expect(text).toContain('create_release');
  });

  it('refuses missing and unknown arguments, unknown prompts and service errors with words naming them', async () => {
    const missing = await rejection(
      session.client.getPrompt({ name: 'draft_release_notes', arguments: { project: PROJECT } }),
    );
    expect(missing.message).toMatch(/needs from .* and to/);
    const unknown = await rejection(
      session.client.getPrompt({
        name: 'draft_release_notes',
        arguments: { project: PROJECT, from: 'a', to: 'b', form: 'x' },
      }),
    );
    expect(unknown.message).toMatch(/no argument "form"/);
    const noPrompt = await rejection(session.client.getPrompt({ name: 'deploy' }));
    expect(noPrompt.message).toMatch(/Unknown prompt "deploy"/);
    const badRef = await rejection(
      session.client.getPrompt({
        name: 'draft_release_notes',
        arguments: { project: PROJECT, from: 'v0.0.1', to: 'main' },
      }),
    );
    expect(badRef.message).toMatch(/404/);
  });
});

describe('resources', () => {
  it('offers the file and status templates and no fixed resources', async () => {
    expect((await session.client.listResources()).resources).toEqual([]);
    const { resourceTemplates } = await session.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      FILE_URI_TEMPLATE,
      'forgeops://projects/{project}/status',
    ]);
    expect(resourceTemplates[0]).toMatchObject({ uriTemplate: FILE_URI_TEMPLATE, name: 'repository-file' });
  });

  it('reads a text file at the default branch and at a tag, with its mime type', async () => {
    const uri = fileUri({ project: PROJECT, path: 'README.md' });
    expect(uri).toBe('forgeops://projects/acme%2Fweb/files/README.md');
    const { contents } = await session.client.readResource({ uri });
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri, mimeType: 'text/markdown' });
    expect((contents[0] as { text: string }).text).toContain('The acme.example storefront.');

    const atTag = fileUri({ project: PROJECT, path: 'src/components/button.ts', ref: 'v1.0.0' });
    const tagged = await session.client.readResource({ uri: atTag });
    expect((tagged.contents[0] as { text: string }).text).toContain('export function button');
  });

  it('reads a binary file as a base64 blob', async () => {
    const { contents } = await session.client.readResource({
      uri: fileUri({ project: PROJECT, path: 'public/logo.png' }),
    });
    expect(contents[0].mimeType).toBe('image/png');
    const blob = Buffer.from((contents[0] as { blob: string }).blob, 'base64');
    expect(blob.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect('text' in contents[0]).toBe(false);
  });

  it('refuses a file larger than a resource may be, naming both sizes, rather than cut it', async () => {
    const size = MAX_RESOURCE_BYTES + 1;
    const created = await session.client.callTool({
      name: 'create_file',
      arguments: {
        id: PROJECT,
        file_path: 'big.txt',
        branch: 'big-file',
        start_branch: 'main',
        commit_message: 'A big file',
        content: 'x'.repeat(size),
      },
    });
    expect(created.isError, resultText(created)).toBeFalsy();
    const error = await rejection(
      session.client.readResource({ uri: fileUri({ project: PROJECT, path: 'big.txt', ref: 'big-file' }) }),
    );
    expect(error.message).toContain(`big.txt is ${size} bytes, more than the ${MAX_RESOURCE_BYTES} bytes`);
  });

  it('answers a missing file with resource-not-found and a foreign URI with the template to use', async () => {
    const missing = await rejection(
      session.client.readResource({ uri: fileUri({ project: PROJECT, path: 'no/such.txt' }) }),
    );
    expect(missing.code).toBe(-32002);
    expect(missing.message).toMatch(/404/);
    const foreign = await rejection(session.client.readResource({ uri: 'file:///etc/passwd' }));
    expect(foreign.message).toContain(FILE_URI_TEMPLATE);
  });
});

describe("the session's own token", () => {
  it('completes and reads only what that user may see', async () => {
    const outsider = await connectInMemory({ client: env.client, token: env.sandbox.tokens.outsider });
    try {
      const { completion } = await outsider.client.complete({
        ref: { type: 'ref/prompt', name: 'triage_failed_pipeline' },
        argument: { name: 'project', value: 'acme/platform/' },
      });
      // payments-api is private to acme; infra is internal, visible to any signed-in user.
      expect(completion.values).toEqual(['acme/platform/infra']);
      const hidden = await rejection(
        outsider.client.readResource({ uri: fileUri({ project: 'acme/platform/payments-api', path: 'README.md' }) }),
      );
      expect(hidden.code).toBe(-32002);
    } finally {
      await outsider.close();
    }
  });
});

describe('completions', () => {
  const complete = (
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    name: string,
    value: string,
    context?: Record<string, string>,
  ) =>
    session.client
      .complete({ ref, argument: { name, value }, ...(context ? { context: { arguments: context } } : {}) })
      .then((r) => r.completion);
  const triage = { type: 'ref/prompt' as const, name: 'triage_failed_pipeline' };
  const notes = { type: 'ref/prompt' as const, name: 'draft_release_notes' };
  const file = { type: 'ref/resource' as const, uri: FILE_URI_TEMPLATE };

  it('completes project paths by full path and by name', async () => {
    expect((await complete(triage, 'project', 'acme/platform/')).values.sort()).toEqual([
      'acme/platform/infra',
      'acme/platform/payments-api',
    ]);
    const byName = await complete(triage, 'project', 'pay');
    expect(byName.values).toEqual(['acme/platform/payments-api']);
    expect(byName.hasMore).toBe(false);
  });

  it('completes branches and tags of the project already chosen', async () => {
    const all = await complete(notes, 'from', '', { project: PROJECT });
    expect(all.values).toEqual(expect.arrayContaining(['main', 'v1.0.0', 'v1.1.0', 'feature/dark-mode']));
    expect(new Set(all.values).size).toBe(all.values.length);
    expect((await complete(notes, 'to', 'v1.1', { project: PROJECT })).values).toEqual(['v1.1.0']);
    expect(
      (await complete(file, 'ref', 'feat', { project: PROJECT })).values.every((v) => v.startsWith('feature/')),
    ).toBe(true);
  });

  it('completes pipeline ids, file paths one directory at a time, and usernames', async () => {
    const pipelines = await complete(triage, 'pipeline_id', '', { project: PROJECT });
    expect(pipelines.values.length).toBeGreaterThan(3);
    expect(pipelines.values.every((v) => /^\d+$/.test(v))).toBe(true);
    expect((await complete(file, 'path', 'src/comp', { project: PROJECT })).values).toEqual(['src/components/']);
    const inDirectory = await complete(file, 'path', 'src/components/', { project: PROJECT });
    expect(inDirectory.values).toContain('src/components/button.ts');
    expect(inDirectory.values.every((v) => v.startsWith('src/components/') && v !== 'src/components/')).toBe(true);
    expect((await complete(triage, 'username', 'ali')).values).toEqual(['alice']);
  });

  it('answers an empty list, not an error, when it cannot know: no project yet, a failing read, an unknown ref', async () => {
    const empty = { values: [], hasMore: false };
    expect(await complete(notes, 'from', 'ma')).toMatchObject(empty);
    expect(await complete(notes, 'from', 'ma', { project: 'acme/nothing-here' })).toMatchObject({ values: [] });
    expect(await complete({ type: 'ref/prompt', name: 'test_prompt_with_arguments' }, 'arg1', 'x')).toMatchObject(
      empty,
    );
    expect(await complete(notes, 'project_name', 'x')).toMatchObject(empty);
    expect(await complete({ type: 'ref/resource', uri: 'file:///{path}' }, 'path', 'x')).toMatchObject(empty);
  });

  it(`answers ${MAX_CONCURRENT_COMPLETIONS} at once; one more is answered empty at once rather than queued against the service`, async () => {
    // The service answers only when the test lets it.
    const held: Array<() => void> = [];
    const slow: ApiTransport = {
      request: (req) =>
        new Promise((resolve, reject) => {
          held.push(() => {
            env.client.request(req).then(resolve as never, reject);
          });
        }),
    };
    const busy = await connectInMemory({ client: slow });
    try {
      const ask = () =>
        busy.client.complete({ ref: triage, argument: { name: 'username', value: 'a' } }).then((r) => r.completion);
      const pending = Array.from({ length: MAX_CONCURRENT_COMPLETIONS }, ask);
      expect(await eventually(() => held.length === MAX_CONCURRENT_COMPLETIONS)).toBe(true);
      expect(await ask()).toEqual({ values: [], total: 0, hasMore: true });
      for (const release of held) release();
      for (const answer of await Promise.all(pending)) expect(answer.values).toContain('alice');
      expect(held.length).toBe(MAX_CONCURRENT_COMPLETIONS);
    } finally {
      await busy.close();
    }
  });

  it('never answers more than the protocol allows', async () => {
    const users = await complete(triage, 'username', '');
    expect(users.values.length).toBeLessThanOrEqual(MAX_COMPLETION_VALUES);
    expect(users.values.length).toBeGreaterThan(0);
  });
});

describe('logging', () => {
  /** A fresh session, its log notifications collected; `secrets` are masked in them. */
  async function loggedSession(secrets: string[] = []) {
    const logged = await connectInMemory({ client: env.client, secrets });
    const lines: LoggingMessageNotification['params'][] = [];
    logged.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      lines.push(n.params);
    });
    return { ...logged, lines };
  }

  it('sends nothing before the client sets a level, then lines at or above it', async () => {
    const logged = await loggedSession();
    try {
      await logged.client.callTool({ name: 'create_pipeline', arguments: { id: PROJECT, ref: 'main' } });
      await logged.client.callTool({ name: 'list_projects', arguments: { per_page: 1 } });
      expect(logged.lines).toEqual([]);

      await logged.client.setLoggingLevel('info');
      await logged.client.callTool({ name: 'create_pipeline', arguments: { id: PROJECT, ref: 'main' } });
      await logged.client.callTool({ name: 'list_projects', arguments: { per_page: 1 } });
      // The write is an info line; the read is a debug line, below the level.
      expect(logged.lines.map((l) => l.level)).toEqual(['info']);
      expect(logged.lines[0]).toMatchObject({
        logger: 'forgeops',
        data: expect.stringMatching(/^mcp create_pipeline: 201 in \d+ ms$/),
      });

      await logged.client.setLoggingLevel('debug');
      await logged.client.callTool({ name: 'list_projects', arguments: { per_page: 1 } });
      expect(logged.lines.at(-1)).toMatchObject({
        level: 'debug',
        data: expect.stringMatching(/^mcp list_projects: 200/),
      });

      await logged.client.setLoggingLevel('error');
      const before = logged.lines.length;
      await logged.client.callTool({ name: 'create_pipeline', arguments: { id: PROJECT, ref: 'main' } });
      expect(logged.lines.length).toBe(before);
    } finally {
      await logged.close();
    }
  });

  it('masks secrets in what it sends', async () => {
    const secret = 'create_pipeline';
    const logged = await loggedSession([secret]);
    try {
      await logged.client.setLoggingLevel('debug');
      await logged.client.callTool({ name: 'create_pipeline', arguments: { id: PROJECT, ref: 'main' } });
      expect(logged.lines.map((l) => l.data)).toEqual([expect.stringMatching(/^mcp \[redacted\]: 201/)]);
    } finally {
      await logged.close();
    }
  });

  it('refuses a level the protocol does not have', async () => {
    const error = await rejection(
      session.client.request({ method: 'logging/setLevel', params: { level: 'verbose' } }, EmptyResultSchema),
    );
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/level must be one of debug, info, .*; got "verbose"/);
  });
});
