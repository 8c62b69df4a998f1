// A project's status as an MCP resource, on the sandbox's clock: its URI, its read as the session reads (the triage
// report, or the service's refusal), and subscriptions through a real watch hub — notified on a change, refused for
// files, unknown URIs, unreadable projects and past the cap, and leaving the hub when unsubscribed or closed.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpError, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { operations } from '../../../src/operations/index.js';
import type { TriageReport } from '../../../src/operations/composed/triage.js';
import { fileUri } from '../../../src/mcp/resources.js';
import { serviceReader } from '../../../src/mcp/service-reads.js';
import {
  MAX_STATUS_SUBSCRIPTIONS,
  NOTIFY_COALESCE_MS,
  STATUS_URI_TEMPLATE,
  StatusSubscriptions,
  parseStatusUri,
  statusUri,
} from '../../../src/mcp/status-resource.js';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import type { WatchHub } from '../../../src/watch/hub.js';
import { connectInMemory, resultText, useSandbox } from '../../helpers/mcp.js';
import { quietLog } from '../../helpers/watch.js';
import { rejectionOf } from '../../helpers/rejection.js';
import { sandboxWatchHub } from '../../helpers/watch-hub.js';

const clock = new ManualClock();
const env = useSandbox({ clock });
const WEB = statusUri('acme/web');
/** Private to acme: the outsider cannot see it. */
const PRIVATE = 'acme/platform/payments-api';

let hubs: WatchHub[] = [];
afterEach(async () => {
  await Promise.all(hubs.map((hub) => hub.close()));
  hubs = [];
});

function newHub(): WatchHub {
  const hub = sandboxWatchHub(env, clock, { holder: 'test' });
  hubs.push(hub);
  return hub;
}

/** Lets the watches' asynchronous work run (no clock moves) until `done`, for at most 200 turns of 10 ms. */
async function settled(done: () => boolean): Promise<void> {
  for (let turn = 0; turn < 200 && !done(); turn++) await new Promise((resolve) => setTimeout(resolve, 10));
}

const rejection = (promise: Promise<unknown>) => rejectionOf(promise, McpError);

/** A session with a watch hub, and the URIs of the updates its client was sent. */
async function subscriber(hub: WatchHub, token?: string) {
  const session = await connectInMemory({ client: env.client, watches: async () => hub, ...(token ? { token } : {}) });
  const updates: string[] = [];
  session.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    updates.push(notification.params.uri);
  });
  return { ...session, updates };
}

describe('the status URI', () => {
  it('encodes the project as one segment and reads it back; anything else is not a status URI', () => {
    expect(statusUri('acme/web')).toBe('forgeops://projects/acme%2Fweb/status');
    expect(parseStatusUri('forgeops://projects/acme%2Fweb/status')).toEqual({ project: 'acme/web' });
    expect(parseStatusUri(statusUri('42'))).toEqual({ project: '42' });
    expect(parseStatusUri(fileUri({ project: 'acme/web', path: 'status' }))).toBeUndefined();
    expect(parseStatusUri('forgeops://projects/acme/web/status')).toBeUndefined();
    expect(parseStatusUri('forgeops://projects/acme%2Fweb/status?ref=main')).toBeUndefined();
    expect(() => parseStatusUri('forgeops://projects/acme%2/status')).toThrow(/malformed %-escape/);
  });
});

describe('reading the status', () => {
  it('lists the template with a title, completes its project, and reads the triage report as untrusted JSON', async () => {
    const session = await connectInMemory({ client: env.client });
    try {
      const { resourceTemplates } = await session.client.listResourceTemplates();
      const template = resourceTemplates.find((t) => t.uriTemplate === STATUS_URI_TEMPLATE);
      expect(template).toMatchObject({ name: 'project-status', title: 'Project status', mimeType: 'application/json' });
      expect(template?.description).toMatch(/triage report/);
      const { completion } = await session.client.complete({
        ref: { type: 'ref/resource', uri: STATUS_URI_TEMPLATE },
        argument: { name: 'project', value: 'acme/w' },
      });
      expect(completion.values).toContain('acme/web');

      const { contents } = await session.client.readResource({ uri: WEB });
      expect(contents).toHaveLength(1);
      expect(contents[0]).toMatchObject({
        uri: WEB,
        mimeType: 'application/json',
        _meta: { 'forgeops/untrusted': true },
      });
      const report = JSON.parse((contents[0] as { text: string }).text) as TriageReport;
      expect(report).toMatchObject({ project: 'acme/web', default_branch: 'main', verdict: 'red' });
      expect(report.red_since?.first_red.title).toBe("Show order dates in the store's time zone");
    } finally {
      await session.close();
    }
  });

  it("gives a session that cannot see the project the service's refusal, not a report of what it could not read", async () => {
    const outsider = await connectInMemory({ client: env.client, token: env.sandbox.tokens.outsider });
    try {
      const hidden = await rejection(outsider.client.readResource({ uri: statusUri(PRIVATE) }));
      expect(hidden.code).toBe(-32002);
      expect(hidden.message).toMatch(/404/);
    } finally {
      await outsider.close();
    }
  });
});

describe('subscribing to the status', () => {
  it('is announced only with a watch hub', async () => {
    const hub = newHub();
    const session = await subscriber(hub);
    const without = await connectInMemory({ client: env.client });
    try {
      expect(session.client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true });
      expect(without.client.getServerCapabilities()?.resources?.subscribe).toBeUndefined();
    } finally {
      await session.close();
      await without.close();
    }
  });

  it('tells the client when the branch changes, as the hub hears it, until it unsubscribes', async () => {
    const hub = newHub();
    const session = await subscriber(hub);
    try {
      await session.client.subscribeResource({ uri: WEB });
      expect(hub.size).toBe(1);
      // What the hub tells its listeners, to know when the watch's first check is over ('changed' comes last).
      const heard: string[] = [];
      const stopHearing = await hub.listen('acme/web', (change) => {
        heard.push(change.kind);
      });
      await settled(() => heard.includes('changed') && session.updates.length > 0);
      // The first check told the branch's state (red) and its pipeline: the client heard its URI (once for both).
      expect(session.updates.length).toBeGreaterThan(0);
      expect(new Set(session.updates)).toEqual(new Set([WEB]));

      // A retry starts a pipeline; a nudge checks now (the clock stands still, so the pipeline stays running).
      const seen = session.updates.length;
      heard.length = 0;
      const { contents } = await session.client.readResource({ uri: WEB });
      const report = JSON.parse((contents[0] as { text: string }).text) as TriageReport;
      const retried = await session.client.callTool({
        name: 'retry_pipeline',
        arguments: { id: 'acme/web', pipeline_id: report.head_pipeline!.id },
      });
      expect(retried.isError, resultText(retried)).toBeFalsy();
      await hub.nudge('acme/web');
      await settled(() => heard.includes('running') && session.updates.length > seen);
      expect(heard).toContain('running');
      expect(session.updates.length).toBeGreaterThan(seen);
      expect(session.updates.length - seen).toBeLessThanOrEqual(heard.length);
      expect(new Set(session.updates.slice(seen))).toEqual(new Set([WEB]));
      const after = JSON.parse(
        ((await session.client.readResource({ uri: WEB })).contents[0] as { text: string }).text,
      ) as TriageReport;
      expect(after.running_pipeline?.id).toBe(report.head_pipeline!.id);

      await stopHearing();
      await session.client.unsubscribeResource({ uri: WEB });
      expect(hub.size).toBe(0);
      // Unsubscribing twice, or from what was never subscribed, is no error.
      await session.client.unsubscribeResource({ uri: WEB });
    } finally {
      await session.close();
    }
  });

  it('watches a project named by its id under its full path, the name webhooks and other listeners use', async () => {
    const hub = newHub();
    const session = await subscriber(hub);
    try {
      const project = (await env.client.request({ method: 'GET', path: '/projects/acme%2Fweb', idempotent: true }))
        .data as { id: number };
      const byId = statusUri(String(project.id));
      await session.client.subscribeResource({ uri: byId });
      const stopHearing = await hub.listen('acme/web', () => {});
      expect(hub.size).toBe(1);
      await stopHearing();
      await settled(() => session.updates.length > 0);
      expect(new Set(session.updates)).toEqual(new Set([byId]));
    } finally {
      await session.close();
    }
  });

  it('stops listening when the session closes', async () => {
    const hub = newHub();
    const session = await subscriber(hub);
    await session.client.subscribeResource({ uri: WEB });
    await session.client.subscribeResource({ uri: statusUri('acme/platform/infra') });
    // The same URI twice is one subscription.
    await session.client.subscribeResource({ uri: WEB });
    expect(hub.size).toBe(2);
    await session.close();
    await settled(() => hub.size === 0);
    expect(hub.size).toBe(0);
  });

  it('refuses a file, an unknown URI and a project the session cannot read, watching nothing', async () => {
    const hub = newHub();
    const outsider = await subscriber(hub, env.sandbox.tokens.outsider);
    try {
      const file = await rejection(
        outsider.client.subscribeResource({ uri: fileUri({ project: 'acme/web', path: 'README.md' }) }),
      );
      expect(file.message).toMatch(/A file resource sends no updates/);
      expect(file.message).toContain(STATUS_URI_TEMPLATE);
      const unknown = await rejection(outsider.client.subscribeResource({ uri: 'file:///etc/passwd' }));
      expect(unknown.message).toMatch(/Unknown resource URI "file:\/\/\/etc\/passwd"/);
      const hidden = await rejection(outsider.client.subscribeResource({ uri: statusUri(PRIVATE) }));
      expect(hidden.code).toBe(-32002);
      expect(hidden.message).toMatch(/404/);
      expect(hub.size).toBe(0);
    } finally {
      await outsider.close();
    }
  });
});

describe("a session's subscriptions", () => {
  /** The session's reads over the whole registry, as a server makes them. */
  const read = () =>
    serviceReader({
      registry: async () => ({
        operation: async (name) => operations.find((o) => o.name === name),
        all: async () => operations,
        explain: { operations },
      }),
      client: env.client,
      readOnly: false,
    });

  /** Status subscriptions on `hub`, read as read() reads, telling nobody; `changes` set the rest (a lower max…). */
  function subscriptionsOn(hub: WatchHub, changes: Partial<ConstructorParameters<typeof StatusSubscriptions>[0]> = {}) {
    return new StatusSubscriptions({
      watches: async () => hub,
      read: read(),
      timeoutMs: 10_000,
      notify: async () => {},
      log: quietLog,
      ...changes,
    });
  }

  it('are capped: one past the most is refused in words, and a slot freed can be used again', async () => {
    expect(MAX_STATUS_SUBSCRIPTIONS).toBe(20);
    const hub = newHub();
    const subscriptions = subscriptionsOn(hub, { max: 2 });
    await subscriptions.subscribe(WEB);
    await subscriptions.subscribe(statusUri('acme/platform/infra'));
    const third = statusUri('acme/platform/payments-api');
    await expect(subscriptions.subscribe(third)).rejects.toThrow(
      /already follows 2 statuses, the most it may; unsubscribe from one first/,
    );
    expect(hub.size).toBe(2);
    await subscriptions.unsubscribe(WEB);
    await subscriptions.subscribe(third);
    expect(subscriptions.size).toBe(2);
    await subscriptions.close();
    expect(hub.size).toBe(0);
    await expect(subscriptions.subscribe(WEB)).rejects.toThrow(/closing/);
  });

  it('tell changes heard together as one notification, and nothing once unsubscribed', async () => {
    // The hub's side, seen through the one call a session makes of it: each listener given to listen().
    const listeners: Array<() => void> = [];
    const watches = {
      listen: async (_project: string, listener: () => void) => {
        listeners.push(listener);
        return async () => {};
      },
    };
    const sent: string[] = [];
    const subscriptions = new StatusSubscriptions({
      watches: async () => watches,
      read: read(),
      timeoutMs: 10_000,
      notify: async (uri) => {
        sent.push(uri);
      },
      log: quietLog,
    });
    await subscriptions.subscribe(WEB);
    // The subscription's read is done; from here the timers are driven, not waited for.
    vi.useFakeTimers();
    try {
      listeners[0]();
      listeners[0]();
      vi.advanceTimersByTime(NOTIFY_COALESCE_MS - 1);
      expect(sent).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(sent).toEqual([WEB]);
      listeners[0]();
      vi.advanceTimersByTime(NOTIFY_COALESCE_MS);
      expect(sent).toEqual([WEB, WEB]);
      listeners[0]();
      await subscriptions.unsubscribe(WEB);
      vi.advanceTimersByTime(NOTIFY_COALESCE_MS);
      expect(sent).toEqual([WEB, WEB]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('leave the hub when closed while a subscription is still being made', async () => {
    const hub = newHub();
    const subscriptions = subscriptionsOn(hub);
    const pending = subscriptions.subscribe(WEB);
    await subscriptions.close();
    await pending;
    expect(hub.size).toBe(0);
  });

  it("pass the hub's refusal on in words", async () => {
    const hub = sandboxWatchHub(env, clock, { holder: 'test', maxWatches: 1 });
    hubs.push(hub);
    const subscriptions = subscriptionsOn(hub);
    await subscriptions.subscribe(WEB);
    await expect(subscriptions.subscribe(statusUri('acme/platform/infra'))).rejects.toThrow(
      /Cannot follow the status of acme\/platform\/infra: forgeops watches its maximum of 1 branches/,
    );
    await subscriptions.close();
  });
});
