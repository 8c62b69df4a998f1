// `forgeops slack` configuration: what it needs, refused at start with one line naming the variable.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../src/config.js';
import { operations } from '../../../src/operations/index.js';
import { slackSettings } from '../../../src/slack/settings.js';

const settingsOf = (env: Record<string, string>) => slackSettings(parseConfig(env), operations);
const base = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' };

describe('slackSettings', () => {
  it('names the missing variable in one line', () => {
    expect(() => settingsOf({ SLACK_BOT_TOKEN: 'xoxb-1' })).toThrow(
      /^invalid configuration: SLACK_SIGNING_SECRET must be set/,
    );
    expect(() => settingsOf({ SLACK_SIGNING_SECRET: 's' })).toThrow(ConfigError);
    expect(() => settingsOf({ SLACK_SIGNING_SECRET: 's' })).toThrow(/SLACK_BOT_TOKEN must be set/);
  });

  it('needs no signing secret in Socket Mode', () => {
    expect(settingsOf({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' }).appToken).toBe('xapp-1');
  });

  it('refuses tokens of the wrong kind, a short secret and unknown in-channel operations, naming each variable', () => {
    expect(() => parseConfig({ SLACK_APP_TOKEN: 'xoxb-1' })).toThrow(
      /SLACK_APP_TOKEN must be an app-level token \(starting xapp-\)/,
    );
    expect(() => parseConfig({ FORGEOPS_SECRET: 'short' })).toThrow(
      /FORGEOPS_SECRET must be at least 32 characters .*; got 5 characters/,
    );
    expect(() => settingsOf({ ...base, SLACK_IN_CHANNEL_OPERATIONS: 'retry_pipeline,retry_pipelines' })).toThrow(
      /SLACK_IN_CHANNEL_OPERATIONS must name operations.*got 'retry_pipelines'/,
    );
  });

  it('posts shared outcomes in the channel by default; none makes every reply private', () => {
    expect(settingsOf(base).inChannel.has('create_release')).toBe(true);
    expect(settingsOf({ ...base, SLACK_IN_CHANNEL_OPERATIONS: 'none' }).inChannel.size).toBe(0);
    expect(settingsOf({ ...base, SLACK_READ_ONLY_CHANNELS: 'C1, C2' }).readOnlyChannels.has('C2')).toBe(true);
  });
});
