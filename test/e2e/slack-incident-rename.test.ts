// A watched project renamed mid-incident, end to end against the sandbox (jobs sped up) and a fake Slack: the
// channel keeps one watch and the one message of the red episode, whose updates (running, still red) say the new
// path; `watching` lists the new path, and the old path, the new one and the project's number all name that watch.
import { describe, expect, it } from 'vitest';
import { messageText, waitFor } from '../helpers/slack.js';
import { useWatchedChannel } from '../helpers/slack-bot.js';

// U1 links the demo maintainer's token; the watch reads with the reporter's.
const { env, bots, posts, retryUntilStillRed } = useWatchedChannel('rename', { U1: 'maintainer' });
const command = (text: string) => bots.command(text, { user: 'U1' });

describe('a watched project renamed mid-incident', () => {
  it('keeps one watch and one message, which says the new path from the next update on', async () => {
    expect(messageText(await command('watch acme/web'))).toContain(
      'Watching acme/web main in this channel: it is red now (message below).',
    );
    const incident = await waitFor(() => posts()[0], 15_000, 'the incident message');
    expect(messageText(incident.args)).toContain('*acme/web* main');
    const ts = await waitFor(() => incident.answer?.ts, 5_000, "the message's ts");

    // Renamed and moved to another path by a maintainer, as the service's project settings do.
    const { id } = (
      await env.client.request<{ id: number }>({
        method: 'PUT',
        path: '/projects/acme%2Fweb',
        body: { path: 'web-app', name: 'Web App' },
        idempotent: false,
      })
    ).data;

    // Retry, pressed on the message posted before the rename: its update shows the retry running, then still red,
    // each under the new path.
    const { running, stillRed } = await retryUntilStillRed(incident, ts);
    expect(messageText(running.args)).toContain('*acme/web-app* main');
    expect(messageText(stillRed.args)).toContain('*acme/web-app* main');
    expect(messageText(stillRed.args)).not.toContain('*acme/web* main');

    // One watch, listed under the new path, whichever name it is asked by; one message throughout.
    expect(messageText(await command('watching'))).toMatch(
      /This channel watches:\\n• acme\/web-app \(default branch\)/,
    );
    for (const name of ['acme/web', 'acme/web-app', String(id)])
      expect(messageText(await command(`watch ${name}`)), name).toContain(
        'Already watching acme/web-app main in this channel: it is red now (its message is above).',
      );
    expect(posts()).toHaveLength(1);
    expect(messageText(await command('unwatch acme/web'))).toContain('Stopped watching acme/web-app in this channel');
    expect(messageText(await command('watching'))).toContain('This channel watches nothing.');
  }, 90_000);
});
