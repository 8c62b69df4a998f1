// The Slack bot end to end: requests signed as Slack signs them, against the Bolt app on loopback, a fake Slack
// Web API and response_url endpoint, and the sandbox behind.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUDIT_FILE } from '../../src/slack/audit.js';
import { MAX_BODY_BYTES } from '../../src/slack/receiver.js';
import { STATE_FILE } from '../../src/state/store.js';
import { useSandbox } from '../helpers/mcp.js';
import {
  buttonsOf as buttons,
  commandBody,
  linkSharedBody,
  loginSubmitBody,
  messageText,
  viewSubmitBody,
  waitFor,
} from '../helpers/slack.js';
import { type From, useSlackBot } from '../helpers/slack-bot.js';

const env = useSandbox();
let clockShift = 0;
const now = () => Date.now() + clockShift;
const bots = useSlackBot(env, { name: 'e2e', settings: { SLACK_READ_ONLY_CHANNELS: 'CREAD' }, now });
const { answersTo } = bots;
const command = bots.ask;

/** Clicks a button by its action and value as Slack sends the click; the path its answers come to. */
const click = (actionId: string, value: string, o: From & { responseUrl?: string } = {}) =>
  bots.click({ action_id: actionId, value }, o);

async function pipelineIds(status?: string): Promise<number[]> {
  const query = { per_page: 100, ...(status ? { status } : {}) };
  const res = await env.client.request<Array<{ id: number }>>({
    method: 'GET',
    path: '/projects/acme%2Fweb/pipelines',
    query,
    idempotent: true,
  });
  return res.data.map((p) => p.id);
}

describe('identity', () => {
  it('refuses a bad token in the form, links a good one, and never stores it readable', async () => {
    const bad = await bots.post(loginSubmitBody('not-a-real-token'));
    expect(JSON.parse(bad.text)).toMatchObject({
      response_action: 'errors',
      errors: { token_block: expect.stringMatching(/refused this token/) },
    });
    const good = await bots.post(loginSubmitBody(env.sandbox.tokens.maintainer));
    expect(JSON.parse(good.text)).toMatchObject({ response_action: 'update' });
    expect(good.text).not.toContain(env.sandbox.tokens.maintainer);
    const state = readFileSync(join(bots.dataDir, STATE_FILE), 'utf8');
    expect(state).toContain('link:T1:U1');
    expect(state).not.toContain(env.sandbox.tokens.maintainer);
    const { body } = await command('whoami');
    expect(messageText(body)).toContain('alice');
  });

  it('refuses a body larger than any Slack sends with 413, reading no more of it and running nothing', async () => {
    const before = bots.slack.calls.length;
    const huge = await bots.post(`payload=${'x'.repeat(MAX_BODY_BYTES)}`);
    expect(huge).toMatchObject({ status: 413, text: 'request body too large' });
    expect(bots.slack.calls.length).toBe(before);
  });

  it('opens the login form on /forge login', async () => {
    const responseUrl = bots.slack.responseUrl();
    await bots.post(commandBody('login', { responseUrl }));
    const opened = await waitFor(() => bots.slack.calls.find((c) => c.method === 'views.open'));
    expect(JSON.stringify(opened.args.view)).toContain('forge_login');
  });

  it('asks an unlinked user to link before anything runs', async () => {
    const { body } = await command('pipeline list acme/web', { user: 'U9' });
    expect(messageText(body)).toMatch(/\/forge login/);
  });
});

describe('slash commands', () => {
  it('acks a command with an empty 200 and answers a read privately', async () => {
    const { ack, body } = await command('pipeline list acme/web');
    expect(ack.text).toBe('');
    expect(body.response_type).toBe('ephemeral');
    expect(messageText(body)).toMatch(/pipeline/i);
  });

  it('answers help, a mistyped command with suggestions, and bad input naming the field', async () => {
    expect(messageText((await command('help')).body)).toContain('/forge pipeline retry');
    expect(messageText((await command('pipline retyr acme/web 1')).body)).toContain('pipeline retry');
    expect(messageText((await command('pipeline get acme/web pipeline_id=soon')).body)).toContain('pipeline_id');
  });

  it('runs a write and tells the whole channel', async () => {
    // The oldest failed pipeline: the head's is left for the triage test below.
    const failed = (await pipelineIds('failed')).at(-1)!;
    const { body } = await command(`pipeline retry acme/web ${failed}`);
    expect(body.response_type).toBe('in_channel');
    expect(messageText(body)).toContain(String(failed));
    const audit = readFileSync(join(bots.dataDir, AUDIT_FILE), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(audit.at(-1)).toMatchObject({
      team: 'T1',
      user: 'U1',
      serviceUser: 'alice',
      channel: 'C1',
      operation: 'retry_pipeline',
      outcome: 'ok',
    });
  });

  it('takes a multi-line value in a ``` block, as help says, and writes exactly its lines', async () => {
    // On a feature branch: main's head is the triage test's. Slack sends &, < and > as &amp;, &lt; and &gt;.
    const { body } = await command(
      'file create acme/web notes/from-slack.md branch=feature/dark-mode commit_message="Notes from Slack" content=```\n# Notes\nif a &lt; b &amp;&amp; c &gt; d\n```',
    );
    expect(messageText(body)).toContain('Created notes/from-slack.md on feature/dark-mode of acme/web');
    const raw = await env.client.request<string>({
      method: 'GET',
      path: '/projects/acme%2Fweb/repository/files/notes%2Ffrom-slack.md/raw',
      query: { ref: 'feature/dark-mode' },
      idempotent: true,
      responseType: 'text',
    });
    expect(raw.data).toBe('# Notes\nif a < b && c > d\n');
  });

  it('refuses a write in a read-only channel, and still answers reads there', async () => {
    const [failed] = await pipelineIds('failed');
    const before = await pipelineIds();
    const { body } = await command(`pipeline retry acme/web ${failed}`, { channel: 'CREAD' });
    expect(messageText(body)).toMatch(/read-only/);
    // Not retried: it is still failed, and no pipeline came. (The pending list is no witness: the sandbox's runner
    // moves pending pipelines on by the wall clock, further the more loaded the machine is.)
    expect(await pipelineIds('failed')).toContain(failed);
    expect(await pipelineIds()).toEqual(before);
    expect(messageText((await command('pipeline list acme/web', { channel: 'CREAD' })).body)).not.toMatch(/read-only/);
  });

  it('refuses a destructive call in a read-only channel at the policy step, before any approval is issued', async () => {
    const [id] = await pipelineIds('success');
    const approvals = () => (readFileSync(join(bots.dataDir, STATE_FILE), 'utf8').match(/"confirm:/g) ?? []).length;
    const before = approvals();
    const { body } = await command(`pipeline delete acme/web ${id}`, { channel: 'CREAD' });
    expect(messageText(body)).toMatch(/this channel is read-only \(SLACK_READ_ONLY_CHANNELS\)/);
    expect(buttons(body)).toHaveLength(0);
    expect(approvals()).toBe(before);
  });

  it('runs a redelivered command once', async () => {
    const before = (await pipelineIds()).length;
    const responseUrl = bots.slack.responseUrl();
    const body = commandBody('pipeline create acme/web ref=main', { responseUrl });
    const timestamp = Math.floor(now() / 1000);
    expect((await bots.post(body, { timestamp })).status).toBe(200);
    expect((await bots.post(body, { timestamp, retryNum: 1 })).status).toBe(200);
    const path = new URL(responseUrl).pathname;
    await waitFor(() => answersTo(path).length > 0 || undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answersTo(path)).toHaveLength(1);
    expect((await pipelineIds()).length).toBe(before + 1);
  });

  it('acks a long wait at once and answers it on the response_url when it ends', async () => {
    // A branch of its own, whose pipeline has just started: no wait can end at its first check.
    const created = await env.client.request<{ id: string }>({
      method: 'POST',
      path: '/projects/acme%2Fweb/repository/commits',
      body: {
        branch: 'slack-settle',
        start_branch: 'main',
        commit_message: 'Add slack-settle',
        actions: [{ action: 'create', file_path: 'slack-settle.txt', content: 'x\n' }],
      },
      idempotent: false,
    });
    const responseUrl = bots.slack.responseUrl();
    const ack = await bots.post(
      commandBody('pipeline settle acme/web ref=slack-settle timeout_seconds=3', { responseUrl }),
    );
    expect(ack.status).toBe(200);
    expect(ack.text).toBe('');
    const path = new URL(responseUrl).pathname;
    expect(answersTo(path)).toHaveLength(0);
    const body = await waitFor(() => answersTo(path)[0], 10_000);
    expect(body.response_type).toBe('ephemeral');
    expect(messageText(body)).toMatch(/slack-settle(: pipeline #\d+| is (green|red))/);
    expect(messageText(body)).toContain(created.data.id.slice(0, 8));
  });

  it('cuts a long list to Block Kit limits with a note', async () => {
    // A pipeline run with 80 variables: its variable list is longer than a chat answer shows.
    const variables = Array.from({ length: 80 }, (_, i) => ({ key: `VAR_${i}`, value: 'x'.repeat(40) }));
    const created = await env.client.request<{ id: number }>({
      method: 'POST',
      path: '/projects/acme%2Fweb/pipeline',
      body: { ref: 'main', variables },
      idempotent: false,
    });
    const { body } = await command(`pipeline variables acme/web ${created.data.id}`);
    const blocks = body.blocks as Array<Record<string, unknown>>;
    const small = blocks.at(-1) as { type: string; elements: Array<{ text: string }> };
    expect(small.type).toBe('context');
    expect(small.elements[0].text).toMatch(/30 more not shown/);
    expect(messageText(body)).toContain('VAR_0');
    expect(blocks.length).toBeLessThanOrEqual(50);
    for (const b of blocks) {
      const text = (b.text as { text?: string } | undefined)?.text ?? '';
      expect(text.length).toBeLessThanOrEqual(3000);
      expect(((b.fields as unknown[]) ?? []).length).toBeLessThanOrEqual(10);
    }
  });
});

describe('answers', () => {
  it('answers through chat.postEphemeral when Slack refuses the response_url', async () => {
    const responseUrl = bots.slack.expiredResponseUrl();
    const sent = await bots.post(commandBody('pipeline list acme/web per_page=1', { responseUrl }));
    expect(sent.status).toBe(200);
    const posted = await waitFor(
      () =>
        bots.slack.calls.find(
          (c) => c.method === 'chat.postEphemeral' && /1 pipeline/.test(JSON.stringify(c.args.blocks)),
        ),
      10_000,
      'chat.postEphemeral',
    );
    expect(posted.args).toMatchObject({ channel: 'C1', user: 'U1' });
    expect(bots.slack.responses.filter((r) => r.path === new URL(responseUrl).pathname)).toHaveLength(1);
  });

  it("answers triage in one message whose buttons act on the head's pipeline only: Retry while red, Cancel while it runs", async () => {
    // The demo's main is red at its head. An earlier test starts a pipeline on main: cancel it to see the demo's state.
    const main = async () =>
      (
        await env.client.request<Array<{ id: number; status: string; sha: string }>>({
          method: 'GET',
          path: '/projects/acme%2Fweb/pipelines',
          query: { ref: 'main', per_page: 100 },
          idempotent: true,
        })
      ).data;
    for (const p of (await main()).filter((p) => p.status === 'running' || p.status === 'pending')) {
      await env.client.request({
        method: 'POST',
        path: `/projects/acme%2Fweb/pipelines/${p.id}/cancel`,
        idempotent: false,
      });
    }
    const head = (await main()).find((p) => p.status === 'failed')!;
    const red = await command('triage acme/web');
    const text = messageText(red.body);
    expect(text).toContain('acme/web: main is RED');
    expect(text).toMatch(/who to ping.*Bob Chen/s);
    expect(text).toContain('Received: \\"2024-03-09\\"');
    // A broken test's revert and ping come first (their own tests: slack-triage, triage-failure-kind); then rolling
    // back the environments the culprit is live in (the seed's reached production and staging).
    const steps = buttons(red.body)
      .map((b) => b.text.text)
      .filter((label) => !/^(Revert|Ping) /.test(label));
    expect(steps).toEqual([
      'Roll back production',
      'Roll back staging',
      `Retry failed jobs of #${head.id}`,
      'Log of test',
      'Open incident issue',
      'Share in channel',
    ]);

    // Retry runs at once (it asks nobody) and the head's pipeline goes again: pending, or running once a runner took
    // it (a second later at this time scale, which a loaded machine may reach before the next read).
    const goingAgain = async () => (await main()).find((p) => p.id === head.id)?.status;
    const retry = buttons(red.body).find((b) => b.text.text === `Retry failed jobs of #${head.id}`)!;
    const retried = await click(retry.action_id, retry.value);
    expect(messageText(await bots.answer(retried))).toMatch(/pending/i);
    expect(await goingAgain()).toMatch(/^(pending|running)$/);

    // Now it runs: the only button is Cancel of that pipeline, and cancelling asks first.
    const running = await command('triage acme/web');
    expect(messageText(running.body)).toContain('acme/web: main is running');
    expect(buttons(running.body).map((b) => b.text.text)).toEqual([`Cancel #${head.id}`, 'Share in channel']);
    const cancel = buttons(running.body)[0];
    const clicked = await click(cancel.action_id, cancel.value);
    const answer = await bots.answer(clicked);
    expect(messageText(answer)).toMatch(/cancel_pipeline/);
    expect(await goingAgain()).toMatch(/^(pending|running)$/);
  });
});

describe('signatures', () => {
  it('refuses a forged signature and a stale timestamp with 401, running nothing', async () => {
    const responseUrl = bots.slack.responseUrl();
    const body = commandBody('pipeline list acme/web', { responseUrl });
    const forged = await bots.post(body, { secret: 'not-the-secret' });
    expect(forged.status).toBe(401);
    const stale = await bots.post(body, { timestamp: Math.floor(now() / 1000) - 6 * 60 });
    expect(stale.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(answersTo(new URL(responseUrl).pathname)).toHaveLength(0);
  });
});

describe('approvals', () => {
  async function askToDelete(id: number) {
    const asked = await command(`pipeline delete acme/web ${id}`);
    expect(asked.body.response_type).toBe('ephemeral');
    expect(messageText(asked.body)).toContain(`pipeline_id: ${id}`);
    const [confirm, cancel] = buttons(asked.body);
    expect(confirm).toMatchObject({ action_id: 'forge_confirm', style: 'danger' });
    expect(cancel).toMatchObject({ action_id: 'forge_cancel' });
    return { approval: confirm.value, ...asked };
  }

  async function exists(id: number): Promise<boolean> {
    const res = await env.client
      .request({ method: 'GET', path: `/projects/acme%2Fweb/pipelines/${id}`, idempotent: true })
      .then(
        () => true,
        () => false,
      );
    return res;
  }

  it("ignores another user's click and an altered approval; two fast clicks run once; a replay runs nothing", async () => {
    const [id] = await pipelineIds('skipped');
    const { approval, responseUrl } = await askToDelete(id);

    const other = await click('forge_confirm', approval, { user: 'U2' });
    expect(messageText(await bots.answer(other))).toMatch(/Only the person who asked/);
    // Always another value: a random id may itself end in the characters put in (1 run in 4,096 ended in "xx").
    const altered = await click('forge_confirm', `${approval.slice(0, -2)}${approval.endsWith('xx') ? 'yy' : 'xx'}`);
    expect(messageText(await bots.answer(altered))).toMatch(/already used or is unknown/);
    expect(await exists(id)).toBe(true);

    const clicks = await Promise.all([
      click('forge_confirm', approval, { responseUrl }),
      click('forge_confirm', approval),
    ]);
    const answers = await waitFor(() => {
      const all = [...answersTo(clicks[0]).slice(1), ...answersTo(clicks[1])];
      return all.length >= 2 ? all : undefined;
    });
    expect(answers.filter((a) => /already used/.test(messageText(a)))).toHaveLength(1);
    const done = answers.find((a) => a.replace_original === true)!;
    expect(messageText(done)).toMatch(/Approved by ana/);
    expect(await exists(id)).toBe(false);

    const replay = await click('forge_confirm', approval);
    expect(messageText(await bots.answer(replay))).toMatch(/already used/);
    const audit = readFileSync(join(bots.dataDir, AUDIT_FILE), 'utf8');
    expect(audit).toContain('"operation":"delete_pipeline"');
    expect(audit).toContain('"confirmedBy":"U1"');
  });

  it('refuses an expired approval and cancels on Cancel', async () => {
    const [first, second] = await pipelineIds('canceled');
    const { approval } = await askToDelete(first);
    clockShift = 6 * 60_000;
    try {
      const late = await click('forge_confirm', approval);
      expect(messageText(await bots.answer(late))).toMatch(/expired/);
    } finally {
      clockShift = 0;
    }
    expect(await exists(first)).toBe(true);

    const again = await askToDelete(second ?? first);
    const cancelled = await click('forge_cancel', again.approval);
    expect(messageText(await bots.answer(cancelled))).toMatch(/Not run: you answered no/);
    const after = await click('forge_confirm', again.approval);
    expect(messageText(await bots.answer(after))).toMatch(/already used or is unknown/);
  });
});

describe('follow-up buttons', () => {
  it('retries a failed pipeline from its Retry button, once', async () => {
    const [failed] = await pipelineIds('failed');
    const shown = await command(`pipeline get acme/web ${failed}`);
    const retry = buttons(shown.body).find((b) => b.text.text === 'Retry');
    expect(retry).toBeDefined();
    expect(retry!.value.length).toBeLessThan(40);
    const first = await click(retry!.action_id, retry!.value);
    const answer = await bots.answer(first);
    expect(answer.response_type).toBe('in_channel');
    expect(await pipelineIds('failed')).not.toContain(failed);
    const second = await click(retry!.action_id, retry!.value);
    expect(messageText(await bots.answer(second))).toMatch(/was used/);
  });

  it("puts Retry beside each failed pipeline of a list and Cancel beside each running one; a row's button acts on its row", async () => {
    const listed = await env.client.request<Array<{ id: number; status: string }>>({
      method: 'GET',
      path: '/projects/acme%2Fweb/pipelines',
      query: { per_page: 20 },
      idempotent: true,
    });
    const { body } = await command('pipeline list acme/web');
    const rows = (
      body.blocks as Array<{
        type: string;
        text?: { text: string };
        accessory?: { text: { text: string }; action_id: string; value: string };
      }>
    ).filter((b) => b.type === 'section' && /^\*#\d+\*/.test(b.text?.text ?? ''));
    expect(rows).toHaveLength(listed.data.length);
    for (const pipeline of listed.data) {
      const row = rows.find((r) => r.text!.text.startsWith(`*#${pipeline.id}*`))!;
      const expected =
        pipeline.status === 'failed' || pipeline.status === 'canceled'
          ? `Retry #${pipeline.id}`
          : pipeline.status === 'running' || pipeline.status === 'pending'
            ? `Cancel pipeline #${pipeline.id}`
            : undefined;
      expect(row.accessory?.text.text).toBe(expected);
    }
    // No row's step is repeated in the buttons under the list.
    expect(
      buttons(body)
        .map((b) => b.text.text)
        .filter((t) => /^(Retry|Cancel) #/.test(t)),
    ).toEqual([]);
    const failed = listed.data.find((p) => p.status === 'failed')!;
    const retry = rows.find((r) => r.text!.text.startsWith(`*#${failed.id}*`))!.accessory!;
    const clicked = await click(retry.action_id, retry.value);
    expect(messageText(await bots.answer(clicked))).toContain(`Retried pipeline #${failed.id}`);
    expect(await pipelineIds('failed')).not.toContain(failed.id);
  });
});

describe('release form', () => {
  const channel = 'CREL';

  async function openForm(text: string) {
    const responseUrl = bots.slack.responseUrl();
    const opens = bots.slack.calls.filter((c) => c.method === 'views.open').length;
    const sent = await bots.post(commandBody(text, { channel, responseUrl }));
    expect(sent).toMatchObject({ status: 200, text: '' });
    const opened = await waitFor(() => bots.slack.calls.filter((c) => c.method === 'views.open')[opens]);
    return {
      view: opened.args.view as {
        callback_id: string;
        private_metadata: string;
        blocks: Array<{ block_id: string; element: { initial_value?: string; multiline?: boolean } }>;
      },
      responseUrl,
    };
  }

  async function submit(view: { private_metadata: string }, values: Record<string, string>) {
    const sent = await bots.post(viewSubmitBody('forge_release', values, { privateMetadata: view.private_metadata }));
    expect(sent.status).toBe(200);
    return sent.text
      ? (JSON.parse(sent.text) as { response_action: string; errors?: Record<string, string> })
      : undefined;
  }

  async function tags(): Promise<string[]> {
    const res = await env.client.request<Array<{ tag_name: string }>>({
      method: 'GET',
      path: '/projects/acme%2Fweb/releases',
      query: { per_page: 100 },
      idempotent: true,
    });
    return res.data.map((r) => r.tag_name);
  }

  it('opens on /forge release create with the fields, the project prefilled from the command or the channel default', async () => {
    const { view } = await openForm('release create acme/web');
    expect(view.callback_id).toBe('forge_release');
    expect(view.blocks.map((b) => b.block_id)).toEqual(['id', 'tag_name', 'ref', 'name', 'description', 'milestones']);
    expect(view.blocks[0].element.initial_value).toBe('acme/web');
    expect(view.blocks.find((b) => b.block_id === 'description')!.element.multiline).toBe(true);
    await command('use acme/handbook', { channel });
    expect((await openForm('release create')).view.blocks[0].element.initial_value).toBe('acme/handbook');
    // With arguments the command runs as typed: no form.
    const opens = bots.slack.calls.filter((c) => c.method === 'views.open').length;
    expect(messageText((await command('release create acme/web tag_name=x', { channel })).body)).toMatch(/description/);
    expect(bots.slack.calls.filter((c) => c.method === 'views.open')).toHaveLength(opens);
  });

  it("shows our validation's and the service's field errors in the form, and creates nothing", async () => {
    const { view } = await openForm('release create acme/web');
    const before = await tags();
    expect(await submit(view, { id: 'acme/web', tag_name: 'v9.0.0-form', description: '   ' })).toMatchObject({
      response_action: 'errors',
      errors: { description: expect.any(String) },
    });
    const badRef = await submit(view, {
      id: 'acme/web',
      tag_name: 'v9.0.0-form',
      ref: 'no-such-branch',
      description: 'Notes',
    });
    expect(badRef).toMatchObject({
      response_action: 'errors',
      errors: { ref: expect.stringMatching(/no-such-branch/) },
    });
    const noRef = await submit(view, { id: 'acme/web', tag_name: 'v9.0.0-form', description: 'Notes' });
    expect(noRef).toMatchObject({
      response_action: 'errors',
      errors: { ref: expect.stringMatching(/^v9\.0\.0-form is not a tag yet: name the branch, tag or commit/) },
    });
    expect(noRef!.errors).not.toHaveProperty('id');
    const taken = await submit(view, { id: 'acme/web', tag_name: 'v1.0.0', description: 'Notes' });
    expect(taken).toMatchObject({
      response_action: 'errors',
      errors: { tag_name: expect.stringMatching(/already exists/) },
    });
    expect(await tags()).toEqual(before);
    const audit = readFileSync(join(bots.dataDir, AUDIT_FILE), 'utf8');
    expect(audit).toMatch(/"operation":"create_release".*"outcome":"failed"/);
  });

  it('creates the release on a good submit as the one who submitted, closes the form and tells the channel', async () => {
    const { view, responseUrl } = await openForm('release create acme/web');
    const answer = await submit(view, {
      id: 'acme/web',
      tag_name: 'v9.1.0-form',
      ref: 'main',
      name: 'Form release',
      description: '## Notes\n\n- first line\n- second line',
      milestones: ' 1.2 , ',
    });
    expect(answer).toEqual({ response_action: 'clear' });
    const posted = await waitFor(() => answersTo(new URL(responseUrl).pathname)[0], 10_000, 'the release outcome');
    expect(posted.response_type).toBe('in_channel');
    expect(messageText(posted)).toContain('Release v9.1.0-form: Form release');
    const release = await env.client.request<{ description: string; milestones: Array<{ title: string }> }>({
      method: 'GET',
      path: '/projects/acme%2Fweb/releases/v9.1.0-form',
      idempotent: true,
    });
    expect(release.data.description).toBe('## Notes\n\n- first line\n- second line');
    expect(release.data.milestones.map((m) => m.title)).toEqual(['1.2']);
    const last = readFileSync(join(bots.dataDir, AUDIT_FILE), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .at(-1);
    expect(last).toMatchObject({
      user: 'U1',
      serviceUser: 'alice',
      channel,
      operation: 'create_release',
      outcome: 'ok',
    });
  });

  it('refuses a form whose origin it did not write', async () => {
    expect(
      await submit({ private_metadata: 'not json' }, { id: 'acme/web', tag_name: 'v9.2.0', description: 'x' }),
    ).toMatchObject({
      response_action: 'errors',
      errors: { id: expect.stringMatching(/not opened by this forgeops/) },
    });
  });
});

describe('unfurls', () => {
  async function share(urls: string[], o: { user?: string; ts: string; source?: 'composer' }) {
    const sent = await bots.post(linkSharedBody(urls, o), { contentType: 'application/json' });
    expect(sent.status).toBe(200);
  }

  const unfurlAt = (ts: string) =>
    bots.slack.calls.find((c) => c.method === 'chat.unfurl' && (c.args.ts === ts || c.args.unfurl_id === `U_${ts}`));

  it("unfurls a public project's pipeline, commit, file and release as the sharer, with follow-ups; never a private project's", async () => {
    const web = `${env.sandbox.url}/acme/web`;
    // A fresh pipeline is pending: its unfurl offers Cancel.
    const created = await env.client.request<{ id: number; status: string }>({
      method: 'POST',
      path: '/projects/acme%2Fweb/pipeline',
      body: { ref: 'main' },
      idempotent: false,
    });
    const pending = created.data.id;
    const commits = await env.client.request<Array<{ id: string; title: string }>>({
      method: 'GET',
      path: '/projects/acme%2Fweb/repository/commits',
      query: { per_page: 1 },
      idempotent: true,
    });
    const [commit] = commits.data;
    const secretPipelines = await env.client.request<Array<{ id: number }>>({
      method: 'GET',
      path: '/projects/acme%2Fplatform%2Fpayments-api/pipelines',
      idempotent: true,
    });
    const links = {
      pipeline: `${web}/-/pipelines/${pending}`,
      commit: `${web}/-/commit/${commit.id}`,
      file: `${web}/-/blob/main/src/components/header.ts`,
      release: `${web}/-/releases/v1.0.0`,
      // alice (U1's linked account) can read this one, but the channel may not: it is never unfurled.
      secret: `${env.sandbox.url}/acme/platform/payments-api/-/pipelines/${secretPipelines.data[0].id}`,
      elsewhere: 'https://example.org/acme/web/-/pipelines/1',
      missing: `${web}/-/pipelines/999999`,
    };
    await share(Object.values(links), { ts: '1700000000.000100' });
    const call = await waitFor(() => unfurlAt('1700000000.000100'), 10_000, 'chat.unfurl');
    expect(call.args.channel).toBe('C1');
    const unfurls = call.args.unfurls as Record<string, { blocks: Array<Record<string, unknown>> }>;
    expect(Object.keys(unfurls).sort()).toEqual([links.commit, links.file, links.pipeline, links.release].sort());
    expect(JSON.stringify(unfurls[links.pipeline])).toContain(`Pipeline #${pending}: ${created.data.status}`);
    expect(JSON.stringify(unfurls[links.commit])).toContain(commit.title);
    expect(JSON.stringify(unfurls[links.file])).toContain('header.ts');
    expect(JSON.stringify(unfurls[links.release])).toContain('Release v1.0.0');
    expect(JSON.stringify(unfurls)).not.toContain('payments');

    const cancel = buttons(unfurls[links.pipeline]).find((b) => b.text.text === 'Cancel pipeline');
    expect(cancel).toBeDefined();
    // Anyone in the channel may click it, and it runs as the clicker: one who linked no account is asked to link,
    // and nobody is asked to approve what they could not run; the sharer is asked first, privately.
    const stranger = await click(cancel!.action_id, cancel!.value, { user: 'U2' });
    expect(messageText(await bots.answer(stranger))).toMatch(/\/forge login/);
    const clicked = await click(cancel!.action_id, cancel!.value, { user: 'U1' });
    const asked = await bots.answer(clicked);
    expect(asked.response_type).toBe('ephemeral');
    expect(messageText(asked)).toContain(`pipeline_id: ${pending}`);
    expect(buttons(asked).map((b) => b.action_id)).toEqual(['forge_confirm', 'forge_cancel']);
    // On "Cancel pipeline?" a button called Cancel could mean either answer: each says what it does.
    expect(buttons(asked).map((b) => b.text.text)).toEqual([`Yes, cancel pipeline ${pending}`, 'No, keep it running']);
    expect(JSON.stringify(asked.blocks)).not.toMatch(/"text":"(Cancel|Confirm|OK|Back)"/);
    expect(await pipelineIds('canceled')).not.toContain(pending);
  });

  it('unfurls a link still in the composer by unfurl_id, without buttons; and nothing for someone who linked no account', async () => {
    await share([`${env.sandbox.url}/acme/web/-/releases/v1.1.0`], { ts: '1700000000.000200', source: 'composer' });
    const composed = await waitFor(() => unfurlAt('1700000000.000200'), 10_000, 'chat.unfurl by unfurl_id');
    expect(composed.args).toMatchObject({ unfurl_id: 'U_1700000000.000200', source: 'composer' });
    expect(composed.args.channel).toBeUndefined();
    const blocks = Object.values(composed.args.unfurls as Record<string, { blocks: Array<{ type: string }> }>)[0]
      .blocks;
    expect(blocks.some((b) => b.type === 'actions')).toBe(false);

    await share([`${env.sandbox.url}/acme/web/-/releases/v1.1.0`], { user: 'U9', ts: '1700000000.000300' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(unfurlAt('1700000000.000300')).toBeUndefined();
  });
});

describe('approval caps', () => {
  it('holds at most 5 waiting approvals per person, end to end; cancelling one makes room', async () => {
    const user = 'U3';
    await bots.link(user, env.sandbox.tokens.developer);
    const [id] = await pipelineIds('success');
    const approvals: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { body } = await command(`pipeline delete acme/web ${id}`, { user });
      const confirm = buttons(body).find((b) => b.action_id === 'forge_confirm');
      expect(confirm).toBeDefined();
      approvals.push(confirm!.value);
    }
    const sixth = await command(`pipeline delete acme/web ${id}`, { user });
    expect(messageText(sixth.body)).toMatch(/already have 5 calls waiting for your approval/);
    expect(buttons(sixth.body)).toHaveLength(0);
    // Another person's queue is their own.
    expect(buttons((await command(`pipeline delete acme/web ${id}`)).body).map((b) => b.action_id)).toContain(
      'forge_confirm',
    );

    const cancelled = await click('forge_cancel', approvals[0], { user });
    expect(messageText(await bots.answer(cancelled))).toMatch(/Not run: you answered no/);
    expect(buttons((await command(`pipeline delete acme/web ${id}`, { user })).body).map((b) => b.action_id)).toContain(
      'forge_confirm',
    );
    expect(await pipelineIds()).toContain(id);
  });
});
