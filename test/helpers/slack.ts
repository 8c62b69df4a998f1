// Slack for tests: a fake Web API and response_url endpoint on loopback that record every call and keep each
// channel's messages (conversations.history reads them back), and requests signed exactly as Slack signs them
// (v0 HMAC-SHA256 of "v0:<timestamp>:<body>").
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedCall {
  method: string;
  args: Record<string, unknown>;
  /** What the fake answered (a post's ts is in it). */
  answer?: Record<string, unknown>;
}

/** A message the fake keeps in its channel, as conversations.history gives it. */
export interface ChannelMessage {
  ts: string;
  text?: unknown;
  blocks?: unknown;
  metadata?: unknown;
}

export interface FakeSlackOptions {
  /**
   * Slack's clock: a post's ts is its time (`<seconds>.<sequence>`), as Slack's are, so conversations.history's
   * oldest and latest apply. Without it a ts is a plain counter from "1000".
   */
  now?: () => number;
}

export interface FakeSlack {
  url: string;
  apiUrl: string;
  calls: RecordedCall[];
  /** Bodies posted to response URLs, by URL path. */
  responses: Array<{ path: string; body: Record<string, unknown> }>;
  /** A fresh response_url on this server. */
  responseUrl(): string;
  /** A response_url Slack no longer accepts (404 expired_url, as for one used 5 times or older than 30 minutes). */
  expiredResponseUrl(): string;
  /** What apps.connections.open answers as the Socket Mode URL (a test's WebSocket server). */
  socketUrl?: string;
  /** Answer the next `count` calls of `method` with 429 and this Retry-After. */
  rateLimit(method: string, count: number, retryAfterSeconds: number): void;
  /** Answer the next `count` calls of `method` with this HTTP status (a 500: Slack having a bad moment); not recorded. */
  failNext(method: string, count: number, status?: number): void;
  /** Answer the calls of `method` to `channel` with `{ ok: false, error }` (not_in_channel: the bot was removed); recorded. */
  refuse(method: string, channel: string, error: string): void;
  /** Carry out the next `count` calls of `method` (recorded) but drop the connection instead of answering. */
  loseAnswer(method: string, count: number): void;
  /** The top-level messages of a channel, oldest first. */
  channelMessages(channel: string): ChannelMessage[];
  close(): Promise<void>;
}

function parseBody(raw: string, contentType: string | undefined): Record<string, unknown> {
  if ((contentType ?? '').includes('json')) return raw ? JSON.parse(raw) : {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    try {
      out[k] = /^[[{]/.test(v) ? JSON.parse(v) : v;
    } catch {
      out[k] = v;
    }
  }
  return out;
}

/** conversations.history over `messages`: newest first, between oldest and latest, `limit` a page, cursor an offset. */
function history(messages: ChannelMessage[], args: Record<string, unknown>): Record<string, unknown> {
  const inclusive = args.inclusive === true || args.inclusive === 'true' || args.inclusive === '1';
  const oldest = args.oldest === undefined ? -Infinity : Number(args.oldest);
  const latest = args.latest === undefined ? Infinity : Number(args.latest);
  const within = messages
    .filter((m) => {
      const at = Number(m.ts);
      return inclusive ? at >= oldest && at <= latest : at > oldest && at < latest;
    })
    .reverse();
  const withMetadata =
    args.include_all_metadata === true || args.include_all_metadata === 'true' || args.include_all_metadata === '1';
  const from = Number(args.cursor ?? 0);
  const limit = Number(args.limit ?? 100);
  const page = within.slice(from, from + limit).map(({ metadata, ...m }) => ({
    type: 'message',
    user: 'UBOT',
    bot_id: 'BBOT',
    ...m,
    ...(withMetadata && metadata ? { metadata } : {}),
  }));
  const more = from + limit < within.length;
  return {
    messages: page,
    has_more: more,
    ...(more ? { response_metadata: { next_cursor: String(from + limit) } } : {}),
  };
}

export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const calls: RecordedCall[] = [];
  const responses: FakeSlack['responses'] = [];
  const limits = new Map<string, { count: number; after: number }>();
  const failures = new Map<string, { count: number; status: number }>();
  const refusals = new Map<string, string>();
  const lostAnswers = new Map<string, number>();
  const channels = new Map<string, ChannelMessage[]>();
  const channelOf = (name: unknown) => {
    const key = String(name);
    if (!channels.has(key)) channels.set(key, []);
    return channels.get(key)!;
  };
  let ts = 1000;
  const nextTs = () =>
    options.now ? `${Math.floor(options.now() / 1000)}.${String(ts++).padStart(6, '0')}` : String(ts++);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = parseBody(Buffer.concat(chunks).toString('utf8'), req.headers['content-type']);
      const path = (req.url ?? '').split('?')[0];
      if (path.startsWith('/expired/')) {
        responses.push({ path, body });
        res.writeHead(404, { 'content-type': 'text/plain' }).end('expired_url');
        return;
      }
      if (path.startsWith('/respond/')) {
        responses.push({ path, body });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        return;
      }
      const method = path.replace(/^\/api\//, '');
      const limit = limits.get(method);
      if (limit && limit.count > 0) {
        limit.count -= 1;
        res
          .writeHead(429, { 'retry-after': String(limit.after), 'content-type': 'application/json' })
          .end(JSON.stringify({ ok: false, error: 'ratelimited' }));
        return;
      }
      const failure = failures.get(method);
      if (failure && failure.count > 0) {
        failure.count -= 1;
        res.writeHead(failure.status, { 'content-type': 'text/plain' }).end('upstream trouble');
        return;
      }
      const call: RecordedCall = { method, args: body };
      calls.push(call);
      const refused = refusals.get(`${method} ${String(body.channel)}`);
      if (refused) {
        call.answer = { ok: false, error: refused };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(call.answer));
        return;
      }
      const answer: Record<string, unknown> = { ok: true };
      if (method === 'auth.test')
        Object.assign(answer, { user_id: 'UBOT', team_id: 'T1', bot_id: 'BBOT', url: 'https://t1.slack.test/' });
      if (method === 'chat.postMessage') {
        Object.assign(answer, { ts: nextTs(), channel: body.channel });
        if (body.thread_ts === undefined)
          channelOf(body.channel).push({
            ts: answer.ts as string,
            text: body.text,
            blocks: body.blocks,
            metadata: body.metadata,
          });
      }
      // An update keeps the message's ts, as Slack's does.
      if (method === 'chat.update') {
        Object.assign(answer, { ts: body.ts, channel: body.channel });
        const updated = channelOf(body.channel).find((m) => m.ts === body.ts);
        if (updated) Object.assign(updated, { text: body.text, blocks: body.blocks });
      }
      if (method === 'conversations.history') Object.assign(answer, history(channelOf(body.channel), body));
      if (method === 'views.open') Object.assign(answer, { view: { id: 'V1' } });
      if (method === 'apps.connections.open')
        Object.assign(answer, fake.socketUrl ? { url: fake.socketUrl } : { ok: false, error: 'no_socket_url' });
      const lost = lostAnswers.get(method) ?? 0;
      if (lost > 0) {
        // Done, but the answer never arrives: the client sees the connection drop.
        lostAnswers.set(method, lost - 1);
        req.socket.destroy();
        return;
      }
      call.answer = answer;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: FakeSlack = {
    url,
    apiUrl: `${url}/api`,
    calls,
    responses,
    responseUrl: () => `${url}/respond/${randomBytes(6).toString('hex')}`,
    expiredResponseUrl: () => `${url}/expired/${randomBytes(6).toString('hex')}`,
    rateLimit(method, count, after) {
      limits.set(method, { count, after });
    },
    failNext(method, count, status = 500) {
      failures.set(method, { count, status });
    },
    refuse(method, channel, error) {
      refusals.set(`${method} ${channel}`, error);
    },
    loseAnswer(method, count) {
      lostAnswers.set(method, count);
    },
    channelMessages: (channel) => [...(channels.get(channel) ?? [])],
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

export interface SignOptions {
  secret: string;
  /** Seconds since the epoch; default now. */
  timestamp?: number;
  /** Replace the signature (a forgery). */
  signature?: string;
  retryNum?: number;
  contentType?: string;
}

/** The headers Slack sends with a body: content type, timestamp, v0 signature, and the retry headers of a redelivery. */
export function signedHeaders(body: string, options: SignOptions): Record<string, string> {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const signature =
    options.signature ?? `v0=${createHmac('sha256', options.secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return {
    'content-type': options.contentType ?? 'application/x-www-form-urlencoded',
    'x-slack-request-timestamp': timestamp,
    'x-slack-signature': signature,
    ...(options.retryNum !== undefined
      ? { 'x-slack-retry-num': String(options.retryNum), 'x-slack-retry-reason': 'http_timeout' }
      : {}),
  };
}

/** Posts a body to the bot signed as Slack signs it; the answer's status and text. */
export async function postSigned(
  url: string,
  body: string,
  options: SignOptions,
): Promise<{ status: number; text: string; ms: number }> {
  const started = Date.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: signedHeaders(body, options),
    body,
    signal: AbortSignal.timeout(5_000),
  });
  const text = await response.text();
  return { status: response.status, text, ms: Date.now() - started };
}

/** A slash command body as Slack sends it (form-encoded). */
export function commandBody(
  text: string,
  o: { user?: string; channel?: string; responseUrl: string; team?: string },
): string {
  return new URLSearchParams({
    token: 'legacy-verification-token',
    team_id: o.team ?? 'T1',
    team_domain: 't1',
    channel_id: o.channel ?? 'C1',
    channel_name: 'ops',
    user_id: o.user ?? 'U1',
    user_name: o.user === 'U2' ? 'bea' : 'ana',
    command: '/forge',
    text,
    api_app_id: 'A1',
    response_url: o.responseUrl,
    trigger_id: `trig.${randomBytes(6).toString('hex')}`,
  }).toString();
}

/** A button click (block_actions) body as Slack sends it: one form field `payload` holding JSON. */
export function clickBody(
  actionId: string,
  value: string,
  o: { user?: string; channel?: string; responseUrl: string; team?: string },
): string {
  const team = o.team ?? 'T1';
  const payload = {
    type: 'block_actions',
    api_app_id: 'A1',
    token: 'legacy',
    trigger_id: `trig.${randomBytes(6).toString('hex')}`,
    team: { id: team, domain: team.toLowerCase() },
    user: { id: o.user ?? 'U1', username: o.user === 'U2' ? 'bea' : 'ana', name: 'x', team_id: team },
    channel: { id: o.channel ?? 'C1', name: 'ops' },
    container: { type: 'message', message_ts: '1.1', is_ephemeral: true },
    response_url: o.responseUrl,
    actions: [
      {
        type: 'button',
        action_id: actionId,
        block_id: 'b1',
        value,
        text: { type: 'plain_text', text: 'x' },
        action_ts: `${Date.now() / 1000}`,
      },
    ],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** A modal submission (view_submission) as Slack sends it: the form's values as `{ block: { action: { value } } }`. */
export function viewSubmitBody(
  callbackId: string,
  values: Record<string, string>,
  o: { user?: string; privateMetadata?: string; action?: string } = {},
): string {
  const state = Object.fromEntries(
    Object.entries(values).map(([block, value]) => [
      block,
      { [o.action ?? 'value']: { type: 'plain_text_input', value } },
    ]),
  );
  const payload = {
    type: 'view_submission',
    api_app_id: 'A1',
    token: 'legacy',
    trigger_id: `trig.${randomBytes(6).toString('hex')}`,
    team: { id: 'T1', domain: 't1' },
    user: { id: o.user ?? 'U1', username: 'ana', name: 'ana', team_id: 'T1' },
    view: {
      id: 'V1',
      type: 'modal',
      callback_id: callbackId,
      team_id: 'T1',
      app_id: 'A1',
      bot_id: 'BBOT',
      hash: 'h',
      private_metadata: o.privateMetadata ?? '',
      state: { values: state },
    },
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** A submission of the login form. */
export function loginSubmitBody(token: string, o: { user?: string } = {}): string {
  return viewSubmitBody('forge_login', { token_block: token }, { ...o, action: 'token' });
}

/** An Events API link_shared event as Slack sends it (JSON; post it with contentType 'application/json'). */
export function linkSharedBody(
  urls: string[],
  o: { user?: string; channel?: string; ts: string; source?: 'conversations_history' | 'composer'; unfurlId?: string },
): string {
  return JSON.stringify({
    token: 'legacy',
    team_id: 'T1',
    api_app_id: 'A1',
    type: 'event_callback',
    event_id: `Ev${randomBytes(6).toString('hex')}`,
    event_time: Math.floor(Date.now() / 1000),
    event: {
      type: 'link_shared',
      channel: o.channel ?? 'C1',
      is_bot_user_member: true,
      user: o.user ?? 'U1',
      message_ts: o.ts,
      unfurl_id: o.unfurlId ?? `U_${o.ts}`,
      source: o.source ?? 'conversations_history',
      links: urls.map((url) => ({ domain: new URL(url).hostname, url })),
      event_ts: o.ts,
    },
  });
}

/** Polls until `check` returns something, within `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined,
  timeoutMs = 5_000,
  what = 'the expected Slack call',
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Asks an async `check` (the service, the store) every 100 ms until it gives a value, within `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** All the text of a Slack message's blocks, for assertions. */
export function messageText(message: Record<string, unknown>): string {
  return JSON.stringify(message.blocks ?? message.text ?? '');
}

/** A button of a message's actions blocks, as Slack sends its value back on a click. */
export interface MessageButton {
  action_id: string;
  value: string;
  text: { text: string };
}

/** The buttons of a message's actions blocks, in order. */
export function buttonsOf(message: Record<string, unknown>): MessageButton[] {
  return ((message.blocks as Array<{ type: string; elements?: unknown[] }>) ?? [])
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements as MessageButton[]);
}

/**
 * What the fake recorded of one channel's messages: posts of its own (not thread replies), updates and replies by ts.
 * `fake` is read at each call, so a test may make these before its fake Slack starts.
 */
export function channelCalls(fake: () => FakeSlack, channel: string) {
  const calls = () => fake().calls;
  return {
    posts: (): RecordedCall[] =>
      calls().filter(
        (c) => c.method === 'chat.postMessage' && c.args.channel === channel && c.args.thread_ts === undefined,
      ),
    updatesOf: (ts: unknown): RecordedCall[] => calls().filter((c) => c.method === 'chat.update' && c.args.ts === ts),
    threadOf: (ts: unknown): RecordedCall[] =>
      calls().filter((c) => c.method === 'chat.postMessage' && c.args.thread_ts === ts),
  };
}
