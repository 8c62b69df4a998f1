// Every read, run on the demo data through the chat dispatcher, reads as words in the terminal and in Slack: no JSON
// object or array (`{"`, `[{`, `":`, `[1,2]`, `[object Object]`) reaches a person, in any field, line or Block Kit text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcher } from '../../src/chat/dispatch.js';
import { HttpClient } from '../../src/http/client.js';
import { operations } from '../../src/operations/index.js';
import { sha256Fingerprint, sshKeysOf } from '../../src/sandbox/areas/ssh-keys/state.js';
import { renderMessage as renderSlack } from '../../src/slack/blocks.js';
import { renderMessage as renderTerminal } from '../../src/terminal/render.js';
import { useSandbox } from '../helpers/mcp.js';

const env = useSandbox();

const WEB = 'acme/web';
const PAYMENTS = 'acme/platform/payments-api';
const GROUP = 'acme';
const PLATFORM = 'acme/platform';
/** A project with members of its own. */
const HANDBOOK = 'acme/handbook';
const FILE = { id: WEB, file_path: 'README.md', ref: 'main' };

let adminClient: HttpClient | undefined;
afterAll(() => adminClient?.close());

// What the demo data lacks: a project member of its own, and a group export to download.
beforeAll(async () => {
  const erin = ((await read('/users', { username: 'erin' })) as Array<{ id: number }>)[0].id;
  await admin().request({
    method: 'POST',
    path: `/projects/${encoded(HANDBOOK)}/members`,
    body: { user_id: erin, access_level: 20 },
    idempotent: false,
  });
  await admin().request({ method: 'POST', path: `/groups/${GROUP}/export`, idempotent: false });
});

/** The administrator's client: some reads are theirs alone. */
function admin(): HttpClient {
  adminClient ??= new HttpClient({
    baseUrl: env.sandbox.url,
    token: env.sandbox.tokens.admin,
    scimToken: env.sandbox.tokens.scim,
    retry: { maxRetries: 0 },
  });
  return adminClient;
}

/** A read for the ids the inputs below need. */
async function read(path: string, query?: Record<string, string>): Promise<unknown> {
  return (await admin().request({ method: 'GET', path, query, idempotent: true })).data;
}

/** A field of the first item a list answers. */
async function first(path: string, field = 'id', query?: Record<string, string>): Promise<unknown> {
  const [item] = (await read(path, query)) as Array<Record<string, unknown>>;
  if (!item) throw new Error(`the demo data has nothing at ${path}`);
  return item[field];
}

const encoded = (path: string) => encodeURIComponent(path);
const pipelineId = () => first(`/projects/${encoded(WEB)}/pipelines`, 'id', { status: 'failed' });
const jobId = () => first(`/projects/${encoded(WEB)}/jobs`, 'id', { 'scope[]': 'failed' });
const epicId = () => first(`/groups/${GROUP}/epics`, 'id', { include_descendant_groups: 'false' });
const mergeRequestIid = () => first(`/projects/${encoded(WEB)}/merge_requests`, 'iid');
const snippetId = () => first(`/projects/${encoded(WEB)}/snippets`);
const packageId = () => first(`/projects/${encoded(PAYMENTS)}/packages`);
const blobSha = async () =>
  ((await read(`/projects/${encoded(WEB)}/repository/tree`)) as Array<{ id: string; type: string }>).find(
    (e) => e.type === 'blob',
  )!.id;
const memberId = (path: string) => first(`${path}/members`);

type Input = Record<string, unknown>;

/**
 * Input for each read, as a person would ask on the demo data: the richest answer the operation gives (stats, details)
 * where an option asks for one. A read added to the registry fails below until it has an entry here.
 */
const INPUTS: Record<string, () => Input | Promise<Input>> = {
  get_file: () => FILE,
  get_file_metadata: () => FILE,
  get_file_blame: () => FILE,
  get_file_blame_metadata: () => FILE,
  get_file_raw: () => FILE,
  get_file_raw_metadata: () => FILE,
  list_repository_tree: () => ({ id: WEB, recursive: true }),
  get_blob: async () => ({ id: WEB, sha: await blobSha() }),
  get_raw_blob: async () => ({ id: WEB, sha: await blobSha() }),
  download_archive: () => ({ id: WEB }),
  compare_refs: () => ({ id: WEB, from: 'v1.0.0', to: 'main' }),
  list_contributors: () => ({ id: WEB }),
  get_merge_base: () => ({ id: WEB, refs: ['main', 'v1.0.0'] }),
  list_commits: () => ({ id: WEB, with_stats: true }),
  get_commit: () => ({ id: WEB, sha: 'main', stats: true }),
  list_commit_refs: () => ({ id: WEB, sha: 'v1.0.0' }),
  get_commit_diff: () => ({ id: WEB, sha: 'main' }),
  list_commit_comments: () => ({ id: WEB, sha: 'main' }),
  list_pipelines: () => ({ id: WEB }),
  get_pipeline: async () => ({ id: WEB, pipeline_id: await pipelineId() }),
  list_pipeline_variables: async () => ({ id: WEB, pipeline_id: await pipelineId() }),
  wait_for_pipeline: async () => ({ id: WEB, pipeline_id: await pipelineId() }),
  wait_until_settled: async () => ({
    id: WEB,
    ref: 'main',
    pipeline_id: await first(`/projects/${encoded(WEB)}/pipelines`, 'id', { status: 'failed', ref: 'main' }),
  }),
  list_releases: () => ({ id: WEB }),
  get_release: () => ({ id: WEB, tag_name: 'v1.0.0' }),
  list_projects: () => ({ statistics: true }),
  list_user_projects: () => ({ user_id: '@alice' }),
  get_current_user: () => ({}),
  get_current_user_status: () => ({}),
  list_users: () => ({}),
  get_user: () => ({ id: '@alice' }),
  list_issues: () => ({ scope: 'all' }),
  list_group_issues: () => ({ id: GROUP }),
  list_project_issues: () => ({ id: WEB }),
  list_merge_requests: () => ({ scope: 'all' }),
  list_group_merge_requests: () => ({ id: GROUP }),
  list_project_merge_requests: () => ({ id: WEB }),
  list_issue_label_events: () => ({ id: WEB, issue_iid: 1 }),
  get_issue_label_event: async () => ({
    id: WEB,
    issue_iid: 1,
    resource_label_event_id: await first(`/projects/${encoded(WEB)}/issues/1/resource_label_events`),
  }),
  list_merge_request_label_events: () => ({ id: WEB, merge_request_iid: 2 }),
  get_merge_request_label_event: async () => ({
    id: WEB,
    merge_request_iid: 2,
    resource_label_event_id: await first(`/projects/${encoded(WEB)}/merge_requests/2/resource_label_events`),
  }),
  list_epic_label_events: async () => ({ id: GROUP, epic_id: await epicId() }),
  get_epic_label_event: async () => {
    const epic = await epicId();
    return {
      id: GROUP,
      epic_id: epic,
      resource_label_event_id: await first(`/groups/${GROUP}/epics/${String(epic)}/resource_label_events`),
    };
  },
  get_notification_settings: () => ({}),
  get_group_notification_settings: () => ({ id: GROUP }),
  get_project_notification_settings: () => ({ id: WEB }),
  list_epics: () => ({ id: GROUP }),
  get_epic: async () => ({ id: GROUP, epic_iid: await first(`/groups/${GROUP}/epics`, 'iid') }),
  list_integrations: () => ({ id: PAYMENTS }),
  get_integration: () => ({ id: PAYMENTS, slug: 'build-server' }),
  list_snippets: () => ({ id: WEB }),
  get_snippet: async () => ({ id: WEB, snippet_id: await snippetId() }),
  get_snippet_raw: async () => ({ id: WEB, snippet_id: await snippetId() }),
  get_snippet_user_agent_detail: async () => ({ id: WEB, snippet_id: await snippetId() }),
  list_packages: () => ({ id: PAYMENTS }),
  list_group_packages: () => ({ id: GROUP }),
  get_package: async () => ({ id: PAYMENTS, package_id: await packageId() }),
  list_package_files: async () => ({ id: PAYMENTS, package_id: await packageId() }),
  get_ssh_key: () => ({ id: sshKeysOf(env.sandbox.store)[0].id }),
  find_ssh_key: () => ({ fingerprint: sha256Fingerprint(sshKeysOf(env.sandbox.store)[0]) }),
  list_scim_users: () => ({ group_path: GROUP }),
  get_scim_user: async () => ({
    group_path: GROUP,
    id: ((await read(`/api/scim/v2/groups/${GROUP}/Users`)) as { Resources: Array<{ id: string }> }).Resources[0].id,
  }),
  list_groups: () => ({ statistics: true }),
  list_subgroups: () => ({ id: GROUP }),
  list_group_projects: () => ({ id: GROUP }),
  get_group: () => ({ id: GROUP }),
  list_group_members: () => ({ id: GROUP }),
  list_all_group_members: () => ({ id: PLATFORM }),
  get_group_member: async () => ({ id: GROUP, user_id: await memberId(`/groups/${GROUP}`) }),
  get_inherited_group_member: async () => ({ id: PLATFORM, user_id: await memberId(`/groups/${GROUP}`) }),
  list_project_members: () => ({ id: HANDBOOK }),
  list_all_project_members: () => ({ id: WEB }),
  get_project_member: async () => ({ id: HANDBOOK, user_id: await memberId(`/projects/${encoded(HANDBOOK)}`) }),
  get_inherited_project_member: async () => ({ id: WEB, user_id: await memberId(`/groups/${GROUP}`) }),
  list_broadcast_messages: () => ({}),
  get_broadcast_message: async () => ({ id: await first('/broadcast_messages') }),
  list_group_variables: () => ({ id: PLATFORM }),
  get_group_variable: () => ({ id: PLATFORM, key: 'LOG_LEVEL' }),
  list_audit_events: () => ({}),
  get_audit_event: async () => ({ id: await first('/audit_events') }),
  list_group_audit_events: () => ({ id: GROUP }),
  get_group_audit_event: async () => ({ id: GROUP, audit_event_id: await first(`/groups/${GROUP}/audit_events`) }),
  get_application_settings: () => ({}),
  download_group_export: () => ({ id: GROUP }),
  list_pipeline_jobs: async () => ({ id: WEB, pipeline_id: await pipelineId() }),
  list_project_jobs: () => ({ id: WEB }),
  get_job: async () => ({ id: WEB, job_id: await jobId() }),
  get_job_log: async () => ({ id: WEB, job_id: await jobId() }),
  list_branches: () => ({ id: WEB }),
  get_branch: () => ({ id: WEB, branch: 'main' }),
  list_protected_branches: () => ({ id: WEB }),
  list_tags: () => ({ id: WEB }),
  get_tag: () => ({ id: WEB, tag_name: 'v1.0.0' }),
  list_environments: () => ({ id: WEB }),
  get_environment: async () => ({ id: WEB, environment_id: await first(`/projects/${encoded(WEB)}/environments`) }),
  list_deployments: () => ({ id: WEB }),
  get_deployment: async () => ({ id: WEB, deployment_id: await first(`/projects/${encoded(WEB)}/deployments`) }),
  get_project: () => ({ id: WEB, statistics: true, license: true }),
  get_merge_request: async () => ({ id: WEB, merge_request_iid: await mergeRequestIid() }),
  list_merge_request_notes: async () => ({ id: WEB, merge_request_iid: await mergeRequestIid() }),
  get_issue: () => ({ id: WEB, issue_iid: 1 }),
  list_issue_notes: () => ({ id: WEB, issue_iid: 1 }),
  triage_project: () => ({ id: WEB }),
  check_button_premise: () => ({ id: WEB, kind: 'retry', ref: 'main' }),
};

/** What JSON looks like when it reaches a person: an object or its keys, a list of values, a stringified object. */
const RAW_JSON: Array<[string, RegExp]> = [
  ['an object', /\{\s*"|\{\s*\}/],
  ['a JSON key', /"[^"\n]*"\s*:/],
  ['a list of objects or lists', /\[\s*[{[]/],
  [
    'a list of values',
    /\[\s*(?:-?\d[\d.]*|"[^"\n]*"|true|false|null)\s*(?:,\s*(?:-?\d[\d.]*|"[^"\n]*"|true|false|null)\s*)*\]|\[\s*\]/,
  ],
  ['a stringified object', /\[object \w+\]/],
];

function rawJsonIn(text: string): string | undefined {
  for (const [what, pattern] of RAW_JSON) {
    const match = pattern.exec(text);
    if (match) return `${what}: …${text.slice(Math.max(0, match.index - 30), match.index + 40)}…`;
  }
  return undefined;
}

/** Every text a Slack client shows: the fallback text and each `text` in the blocks, however deep. */
function slackTexts(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) slackTexts(item, out);
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'text' && typeof inner === 'string') out.push(inner);
      else slackTexts(inner, out);
    }
  }
  return out;
}

/** Every text the service sent, file content decoded: what a code section may show as it came (a package.json is JSON). */
function sentTexts(data: unknown, out: string[] = []): string[] {
  if (Buffer.isBuffer(data)) out.push(data.toString('utf8'));
  else if (typeof data === 'string') out.push(data);
  else if (Array.isArray(data)) for (const item of data) sentTexts(item, out);
  else if (data !== null && typeof data === 'object') {
    const record = data as Record<string, unknown>;
    if (record.encoding === 'base64' && typeof record.content === 'string')
      out.push(Buffer.from(record.content, 'base64').toString('utf8'));
    for (const value of Object.values(record)) sentTexts(value, out);
  }
  return out;
}

/** JSON in a code section's line that is not the service's own text there (a file's, a diff's, a log's). */
function madeUpJsonIn(code: string, sent: string[]): string | undefined {
  for (const line of code.split('\n')) {
    const found = rawJsonIn(line);
    if (!found) continue;
    const from = Math.min(...RAW_JSON.map(([, pattern]) => pattern.exec(line)?.index ?? line.length));
    const rest = line.slice(from).trimEnd();
    if (!sent.some((text) => text.includes(rest))) return found;
  }
  return undefined;
}

// Every test makes what it changes, so they run shuffled, in an order other than the written one (the seed is
// in vitest.config.ts): a test that leans on what another did fails on every run.
describe.shuffle('readable-answers, in any order', () => {
  describe('every read reads as words, not JSON', () => {
    const reads = operations.filter((op) => op.effect === 'read');
    const dispatcher = createDispatcher({
      operations,
      policy: { readOnly: false },
      runContext: () => ({ client: admin() }),
      explain: { operations },
      defaultProject: { get: () => undefined, set: () => undefined },
    });

    it('has demo input for every read in the registry', () => {
      expect(reads.map((op) => op.name).filter((name) => !INPUTS[name])).toEqual([]);
    });

    it.each(reads.map((op) => op.name))('%s', async (name) => {
      const input = await INPUTS[name]();
      let reply = await dispatcher.call(name, input);
      // The export is built in the background; its download answers 404 until it is there.
      for (
        let tries = 0;
        name === 'download_group_export' && reply.kind === 'message' && !reply.ok && tries < 50;
        tries++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        reply = await dispatcher.call(name, input);
      }
      if (reply.kind !== 'message') throw new Error(`${name} asked for an approval`);
      const { message, outcome } = reply;
      expect(
        reply.ok,
        `${name} failed on the demo data: ${message.title} ${message.sections.map((s) => s.text).join(' ')}`,
      ).toBe(true);
      // Code sections are checked on their own, against what the service sent; everything else is the presenter's words.
      const sent = sentTexts(outcome?.ok ? outcome.result.data : undefined);
      for (const section of message.sections.filter((s) => s.code))
        expect(madeUpJsonIn(section.text, sent), `code section:\n${section.text}`).toBeUndefined();
      const words = { ...message, sections: message.sections.filter((s) => !s.code) };
      const terminal = renderTerminal(words, { operations });
      expect(rawJsonIn(terminal), `terminal:\n${terminal}`).toBeUndefined();
      const slack = renderSlack(words, { actionValue: (i) => `ref-${i}` });
      for (const text of slackTexts(slack)) expect(rawJsonIn(text), `Slack: ${text}`).toBeUndefined();
    });
  });
});
