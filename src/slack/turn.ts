// One request from Slack as the bot and its parts see it (a command, a button, a form, a shared link).
import type { SlackUser } from './identity.js';

/** One request from Slack, as far as the bot cares: who, where, and how to answer. */
export interface Turn {
  user: SlackUser;
  /** The Slack user name, for "approved by". */
  userName?: string;
  channelId: string;
  responseUrl?: string;
}
