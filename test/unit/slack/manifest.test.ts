// manifest.json is generated from the registry; a stale committed file fails here.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { operations } from '../../../src/operations/index.js';
import { BOT_SCOPES, slackManifest } from '../../../src/slack/manifest.js';

const committed = JSON.parse(readFileSync(fileURLToPath(new URL('../../../manifest.json', import.meta.url)), 'utf8'));

describe('manifest.json', () => {
  it('is up to date with the registry (npm run docs regenerates it)', () => {
    expect(committed).toEqual(slackManifest(operations));
  });

  it('declares the command, interactivity and link unfurls on /slack/events, with the scopes the bot uses', () => {
    const [command] = committed.features.slash_commands;
    expect(command).toMatchObject({ command: '/forge', url: 'https://forgeops.example.com/slack/events' });
    expect(command.usage_hint).toContain('help');
    expect(committed.settings.interactivity).toEqual({
      is_enabled: true,
      request_url: 'https://forgeops.example.com/slack/events',
    });
    expect(committed.settings.event_subscriptions.bot_events).toEqual(['link_shared']);
    expect(committed.features.unfurl_domains).toEqual(['code.example.com']);
    expect(committed.oauth_config.scopes.bot).toEqual(BOT_SCOPES);
  });

  it("enables the Messages tab, read-only: the approver's direct message arrives there", () => {
    expect(committed.features.app_home).toEqual({
      home_tab_enabled: false,
      messages_tab_enabled: true,
      messages_tab_read_only_enabled: true,
    });
  });

  it('leaves the URLs out in Socket Mode', () => {
    const socket = slackManifest(operations, { socketMode: true }) as {
      settings: Record<string, unknown>;
      features: { slash_commands: Array<Record<string, unknown>> };
    };
    expect(socket.settings.socket_mode_enabled).toBe(true);
    expect(JSON.stringify(socket)).not.toContain('request_url');
    expect(socket.features.slash_commands[0].url).toBeUndefined();
  });
});
