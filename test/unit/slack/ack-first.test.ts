// The Slack receiver answers Slack first and works after: a command or a button gets its HTTP 200 while everything
// behind it (the redelivery check in the shared state store, the service call) is still held, and the work then
// finishes and answers on the response_url; a form still gets its answer from its listener; a forged request nothing.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config.js';
import type { ApiRequest, ApiTransport } from '../../../src/http/types.js';
import type { Logger } from '../../../src/log.js';
import { operations } from '../../../src/operations/index.js';
import { DurableApprovals } from '../../../src/approval/binding.js';
import { createSlackApp, type SlackApp } from '../../../src/slack/app.js';
import { AuditLog } from '../../../src/slack/audit.js';
import { ACTION_IDS } from '../../../src/slack/blocks.js';
import { SlackBot } from '../../../src/slack/bot.js';
import { Identities } from '../../../src/slack/identity.js';
import { PostQueue, ResponseUrls } from '../../../src/slack/replies.js';
import { slackSettings } from '../../../src/slack/settings.js';
import { MemoryStore } from '../../../src/state/store.js';
import { useSandbox } from '../../helpers/mcp.js';
import {
  clickBody,
  commandBody,
  loginSubmitBody,
  messageText,
  postSigned,
  startFakeSlack,
  waitFor,
  type FakeSlack,
} from '../../helpers/slack.js';

const secret = 'ack-first-signing-secret';
const env = useSandbox();

/** A door the test opens: whatever waits on it stays held until then. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** The shared state store as the redelivery check sees it: each claim waits until the test lets it through. */
class HeldStore extends MemoryStore {
  claims = 0;
  door = gate();

  override async add(key: string, value: unknown, options: { ttlMs?: number } = {}): Promise<boolean> {
    this.claims += 1;
    await this.door.opened;
    return super.add(key, value, options);
  }
}

let slack: FakeSlack;
let app: SlackApp;
let url: string;
const seen = new HeldStore();
const warnings: string[] = [];
const log: Logger = {
  error: (m) => warnings.push(m),
  warn: (m) => warnings.push(m),
  info() {},
  debug() {},
};
/** The service calls the bot made, each held until the test opens `service`. */
const serviceCalls: string[] = [];
let service = gate();

beforeAll(async () => {
  slack = await startFakeSlack();
  const config = parseConfig({
    CODEHOST_URL: env.sandbox.url,
    SLACK_SIGNING_SECRET: secret,
    SLACK_BOT_TOKEN: 'xoxb-ack-first',
    SLACK_API_URL: slack.apiUrl,
    SLACK_SHARED_READ_TOKEN: env.sandbox.tokens.maintainer,
  });
  const settings = slackSettings(config, operations);
  const held: ApiTransport = {
    async request<T>(req: ApiRequest) {
      serviceCalls.push(req.path);
      await service.opened;
      return env.client.request<T>(req);
    },
  };
  const store = new MemoryStore();
  const bot = new SlackBot({
    operations,
    client: held,
    settings,
    store,
    identities: new Identities({ store, sharedReadToken: settings.sharedReadToken }),
    approvals: new DurableApprovals(store),
    audit: new AuditLog(undefined, log),
    responses: new ResponseUrls(log),
    queue: new PostQueue({ log, post: (args) => app.bolt.client.chat.postMessage(args as never) }),
    web: {
      postEphemeral: (args) => app.bolt.client.chat.postEphemeral(args as never),
      unfurl: (args) => app.bolt.client.chat.unfurl(args as never),
    },
    explain: { operations, deadline: { ms: config.callTimeoutMs, setting: 'FORGEOPS_CALL_TIMEOUT_MS' } },
    callTimeoutMs: config.callTimeoutMs,
    log,
  });
  app = createSlackApp({ settings, bot, log, seen });
  ({ url } = (await app.start(0, '127.0.0.1')) as { url: string });
});

afterAll(async () => {
  seen.door.open();
  service.open();
  await app?.stop();
  await slack?.close();
});

afterEach(() => {
  warnings.length = 0;
  serviceCalls.length = 0;
  seen.door = gate();
  service = gate();
});

const answersOn = (responseUrl: string) =>
  slack.responses.filter((r) => r.path === new URL(responseUrl).pathname).map((r) => r.body);

describe('the ack does not wait on the work', () => {
  it('answers a command 200 while its redelivery check and its service call are held, then posts the result', async () => {
    const responseUrl = slack.responseUrl();
    const ack = await postSigned(url, commandBody('pipeline list acme/web', { responseUrl }), { secret });
    expect(ack).toMatchObject({ status: 200, text: '' });
    // Answered by the receiver itself, not by its fallback for a listener that never acked.
    expect(warnings).toEqual([]);
    expect(answersOn(responseUrl)).toEqual([]);

    seen.door.open();
    await waitFor(() => serviceCalls.length > 0, 5_000, 'the service call');
    expect(serviceCalls[0]).toContain('/pipelines');
    expect(answersOn(responseUrl)).toEqual([]);

    service.open();
    const answer = await waitFor(() => answersOn(responseUrl).at(0), 10_000, 'the answer');
    expect(messageText(answer)).toMatch(/pipeline/i);
    expect(messageText(answer)).not.toMatch(/went wrong|Not run/);
    expect(warnings).toEqual([]);
  });

  it('answers a button 200 while its redelivery check is held, then answers the click', async () => {
    const responseUrl = slack.responseUrl();
    const ack = await postSigned(url, clickBody(`${ACTION_IDS.followUp}:0`, 'no-such-ref', { responseUrl }), {
      secret,
    });
    expect(ack).toMatchObject({ status: 200, text: '' });
    expect(warnings).toEqual([]);
    expect(answersOn(responseUrl)).toEqual([]);

    seen.door.open();
    const answer = await waitFor(() => answersOn(responseUrl).at(0), 10_000, 'the answer');
    expect(messageText(answer)).toContain('no longer works');
  });

  it("still answers a form's submission with what its listener acks", async () => {
    seen.door.open();
    const answer = await postSigned(url, loginSubmitBody('a-token'), { secret });
    expect(answer.status).toBe(200);
    // No FORGEOPS_SECRET here: linking is refused, and the refusal is the form's own answer.
    expect(JSON.parse(answer.text)).toMatchObject({ response_action: 'errors' });
  });

  it('refuses a forged or stale request with 401 before any of the work starts', async () => {
    seen.door.open();
    const claims = seen.claims;
    const responseUrl = slack.responseUrl();
    const body = commandBody('pipeline list acme/web', { responseUrl });
    const forged = await postSigned(url, body, { secret, signature: `v0=${'0'.repeat(64)}` });
    const stale = await postSigned(url, body, { secret, timestamp: Math.floor(Date.now() / 1000) - 3_600 });
    expect([forged.status, stale.status]).toEqual([401, 401]);
    // A signed request sent after them is worked on; had either of them been, its claim would have come first.
    const signed = await postSigned(url, commandBody('help', { responseUrl }), { secret });
    expect(signed.status).toBe(200);
    await waitFor(() => answersOn(responseUrl).length > 0, 10_000, 'the answer to help');
    expect(seen.claims - claims).toBe(1);
    expect(serviceCalls).toEqual([]);
  });
});
