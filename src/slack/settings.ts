// What `forgeops slack` needs from the configuration, checked at start: one line naming the variable when it is wrong.
import { ConfigError, type Config } from '../config.js';
import type { Operation } from '../operations/engine/define.js';

/** Shared outcomes: everyone in the channel wants to know a release went out or a pipeline runs again. */
const DEFAULT_IN_CHANNEL = ['create_release', 'retry_pipeline', 'cancel_pipeline', 'create_pipeline'];

export interface SlackSettings {
  signingSecret?: string;
  botToken: string;
  appToken?: string;
  apiUrl?: string;
  readOnlyChannels: ReadonlySet<string>;
  sharedReadToken?: string;
  /** SLACK_APPROVER: who approves MCP calls waiting on the approval page. */
  approver?: string;
  inChannel: ReadonlySet<string>;
  dataDir?: string;
  secret?: string;
  /** FORGEOPS_READ_ONLY: no write anywhere. */
  readOnly: boolean;
}

export function slackSettings(config: Config, operations: readonly Operation[]): SlackSettings {
  const { slack } = config;
  const bad = (message: string) => new ConfigError(`invalid configuration: ${message}`);
  if (!slack.botToken)
    throw bad("SLACK_BOT_TOKEN must be set for `forgeops slack` (the app's Bot User OAuth Token, xoxb-…); got ''");
  if (!slack.appToken && !slack.signingSecret) {
    throw bad(
      "SLACK_SIGNING_SECRET must be set for `forgeops slack` in HTTP mode (the app's Signing Secret, under Basic Information); got ''",
    );
  }
  const names = new Set(operations.map((op) => op.name));
  const configured = slack.inChannelOperations ?? DEFAULT_IN_CHANNEL;
  const inChannel = configured.length === 1 && configured[0] === 'none' ? [] : configured;
  const unknown = inChannel.filter((name) => !names.has(name));
  if (unknown.length > 0)
    throw bad(
      `SLACK_IN_CHANNEL_OPERATIONS must name operations (see forgeops ops) or be 'none'; got '${unknown.join(',')}'`,
    );
  return {
    signingSecret: slack.signingSecret,
    botToken: slack.botToken,
    appToken: slack.appToken,
    apiUrl: slack.apiUrl,
    readOnlyChannels: new Set(slack.readOnlyChannels),
    sharedReadToken: slack.sharedReadToken,
    approver: slack.approver,
    inChannel: new Set(inChannel),
    dataDir: config.dataDir,
    secret: config.secret,
    readOnly: config.policy.readOnly,
  };
}
