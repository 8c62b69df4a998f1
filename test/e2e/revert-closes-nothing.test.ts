// End to end, an assistant's revert of a commit titled "Fix login, closes #5 !2 ~bug @all": over MCP, forgeops opens
// the revert merge request in the sandbox; a person merges it into main; issue #5 is still open. The service closes
// the issues a merged merge request's title, description and commits name, and its own revert commit quotes the
// culprit's title, so both what forgeops writes and the revert commit it leaves on the branch must name nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectInMemory, useSandbox } from '../helpers/mcp.js';
import { api } from '../unit/sandbox/sandbox-client.js';

const env = useSandbox();
let mcp: Awaited<ReturnType<typeof connectInMemory>>;
beforeAll(async () => {
  mcp = await connectInMemory({ client: env.client });
});
afterAll(() => mcp.close());

const WEB = `/projects/${encodeURIComponent('acme/web')}`;
const TITLE = 'Fix login, closes #5 !2 ~bug @all';

type Commit = { id: string; title: string; message: string; parent_ids: string[] };

const readme = async (ref: string) =>
  (await api(env.sandbox, 'GET', `${WEB}/repository/files/README.md/raw?ref=${ref}`, { as: 'maintainer' })).text;

describe('a revert merge request made by forgeops, merged into the default branch', () => {
  it('leaves issue #5 open: nothing in its title, description or commit names it', async () => {
    const before = await readme('main');
    const culprit = await api(env.sandbox, 'POST', `${WEB}/repository/commits`, {
      as: 'maintainer',
      json: {
        branch: 'main',
        commit_message: `${TITLE}\n\nA new login form.`,
        actions: [
          { action: 'create', file_path: 'src/login.ts', content: 'export const login = () => true;\n' },
          { action: 'update', file_path: 'README.md', content: `${before}\n## Login\n\nNew.\n` },
        ],
      },
    });
    expect(culprit.status, culprit.text).toBe(201);
    const issue = async () => (await api(env.sandbox, 'GET', `${WEB}/issues/5`, { as: 'maintainer' })).data;
    expect((await issue()).state).toBe('opened');

    const made = await mcp.client.callTool({
      name: 'revert_as_merge_request',
      arguments: { id: 'acme/web', sha: culprit.data.id.slice(0, 8) },
    });
    expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
    const result = made.structuredContent as { branch: string; merge_request: { iid: number } };

    // What forgeops wrote: every reference in inline code.
    const mr = (
      await api(env.sandbox, 'GET', `${WEB}/merge_requests/${result.merge_request.iid}`, { as: 'maintainer' })
    ).data as { title: string; description: string };
    for (const text of [mr.title, mr.description]) {
      expect(text).toContain('closes `#5` `!2` `~bug` `@all`');
      expect(text).not.toContain('closes #5');
    }
    // The revert on the branch: forgeops's copy of the service's, its message quoted, the culprit's changes undone.
    const [head] = (
      await api(env.sandbox, 'GET', `${WEB}/repository/commits?ref_name=${result.branch}&per_page=1`, {
        as: 'maintainer',
      })
    ).data as Commit[];
    expect(head.message).toBe(
      `Revert "Fix login, closes \`#5\` \`!2\` \`~bug\` \`@all\`"\n\nThis reverts commit ${culprit.data.id}`,
    );
    expect(head.parent_ids).toEqual([culprit.data.id]);
    expect(await readme(result.branch)).toBe(before);
    const login = await api(env.sandbox, 'GET', `${WEB}/repository/files/src%2Flogin.ts/raw?ref=${result.branch}`, {
      as: 'maintainer',
    });
    expect(login.status).toBe(404);

    // A person merges it into main.
    const merged = await api(env.sandbox, 'PUT', `${WEB}/merge_requests/${result.merge_request.iid}/merge`, {
      as: 'maintainer',
    });
    expect([merged.status, merged.data.state]).toEqual([200, 'merged']);
    expect(await readme('main')).toBe(before);
    expect((await issue()).state).toBe('opened');
  });
});
