// The Slack app manifest, derived from the registry: the /forge command and its usage hint, interactivity, the
// link_shared event with the service's unfurl domain, the scopes the bot uses, HTTP or Socket Mode.
import type { Operation } from '../operations/engine/define.js';
import { EVENTS_PATH } from './receiver.js';

interface ManifestOptions {
  /** The public base URL Slack reaches the bot at (HTTP mode). */
  publicUrl?: string;
  socketMode?: boolean;
  /** The service's host name, whose links unfurl. */
  unfurlDomain?: string;
}

const MANIFEST_DEFAULTS = { publicUrl: 'https://forgeops.example.com', unfurlDomain: 'code.example.com' } as const;

/**
 * Every Web API method the bot calls needs its scope, and no more: commands, chat.postMessage/postEphemeral,
 * link_shared, chat.unfurl, and conversations.history in public and private channels (to find an incident message
 * whose post went unanswered before posting it again).
 */
export const BOT_SCOPES = ['commands', 'chat:write', 'links:read', 'links:write', 'channels:history', 'groups:history'];

export function slackManifest(
  operations: readonly Operation[],
  options: ManifestOptions = {},
): Record<string, unknown> {
  const socketMode = options.socketMode ?? false;
  const url = `${(options.publicUrl ?? MANIFEST_DEFAULTS.publicUrl).replace(/\/+$/, '')}${EVENTS_PATH}`;
  const nouns = [...new Set(operations.map((op) => op.chat.split(' ')[0]))];
  const withUrl = (rest: Record<string, unknown>) => (socketMode ? rest : { ...rest, request_url: url });
  return {
    _metadata: { major_version: 1, minor_version: 1 },
    display_information: {
      name: 'forgeops',
      description: 'Retry pipelines, cut releases and triage projects of your code hosting service from Slack.',
      background_color: '#1d2b3a',
    },
    features: {
      bot_user: { display_name: 'forgeops', always_online: true },
      // The approver's yes/no message (SLACK_APPROVER) arrives in the app's Messages tab; nobody types there.
      app_home: { home_tab_enabled: false, messages_tab_enabled: true, messages_tab_read_only_enabled: true },
      slash_commands: [
        {
          command: '/forge',
          ...(socketMode ? {} : { url }),
          description: `Act on the code hosting service: ${operations.length} commands on ${nouns.join(', ')}.`,
          usage_hint: 'pipeline retry acme/web 42 · release create · triage acme/web · login · help',
          should_escape: false,
        },
      ],
      unfurl_domains: [options.unfurlDomain ?? MANIFEST_DEFAULTS.unfurlDomain],
    },
    oauth_config: { scopes: { bot: BOT_SCOPES } },
    settings: {
      event_subscriptions: withUrl({ bot_events: ['link_shared'] }),
      interactivity: withUrl({ is_enabled: true }),
      org_deploy_enabled: false,
      socket_mode_enabled: socketMode,
      token_rotation_enabled: false,
    },
  };
}
