// Project integrations: the kinds the spec lists with their parameters, the stored settings per project, and the demo
// ones (per store: integrationStateOf).
//
// The spec leaves out the literal slugs (they carry product names); the sandbox names each kind after what the spec
// says it is, and keeps the service's own slug where that names no product (emails-on-push, external-wiki,
// custom-issue-tracker).
import type { Store } from '../../core/store.js';
import { areaState } from '../../core/area.js';

type ParamType = 'string' | 'boolean' | 'branches';

export interface IntegrationKind {
  slug: string;
  title: string;
  /** Parameters in the spec's order; `required` ones are refused as missing when absent. */
  params: Array<{ name: string; type: ParamType; required?: boolean }>;
}

/** The event flags of chat integrations (webhook chat, room chat with colour). */
const CHAT_EVENTS = [
  'push_events',
  'issues_events',
  'confidential_issues_events',
  'merge_requests_events',
  'tag_push_events',
  'note_events',
  'confidential_note_events',
  'pipeline_events',
  'wiki_page_events',
] as const;

const req = (name: string): IntegrationKind['params'][number] => ({ name, type: 'string', required: true });
const str = (name: string): IntegrationKind['params'][number] => ({ name, type: 'string' });
const bool = (name: string): IntegrationKind['params'][number] => ({ name, type: 'boolean' });
const branches = { name: 'branches_to_be_notified', type: 'branches' } as const;

export const INTEGRATION_KINDS: readonly IntegrationKind[] = [
  {
    slug: 'task-tracker',
    title: 'Task tracker',
    params: [req('api_key'), str('restrict_to_branch'), bool('push_events')],
  },
  { slug: 'project-manager', title: 'Project manager', params: [req('token'), str('subdomain'), bool('push_events')] },
  {
    slug: 'build-server',
    title: 'Build server',
    params: [req('build_server_url'), req('build_key'), req('username'), req('password'), bool('push_events')],
  },
  {
    slug: 'custom-issue-tracker',
    title: 'Custom issue tracker',
    params: [
      req('new_issue_url'),
      req('issues_url'),
      req('project_url'),
      str('description'),
      str('title'),
      bool('push_events'),
    ],
  },
  {
    slug: 'hosted-ci',
    title: 'Hosted CI',
    params: [req('token'), req('project_url'), bool('enable_ssl_verification'), bool('push_events')],
  },
  { slug: 'chat-room', title: 'Chat room', params: [req('token'), str('subdomain'), str('room'), bool('push_events')] },
  {
    slug: 'webhook-chat',
    title: 'Chat by webhook',
    params: [
      req('webhook'),
      bool('notify_only_broken_pipelines'),
      branches,
      ...CHAT_EVENTS.map(bool),
      bool('notify_only_default_branch'),
    ],
  },
  {
    slug: 'ci-server',
    title: 'CI server',
    params: [
      req('token'),
      req('ci_server_url'),
      bool('enable_ssl_verification'),
      bool('push_events'),
      bool('merge_requests_events'),
      bool('tag_push_events'),
    ],
  },
  {
    slug: 'emails-on-push',
    title: 'Emails on push',
    params: [
      req('recipients'),
      bool('disable_diffs'),
      bool('send_from_committer_email'),
      bool('push_events'),
      bool('tag_push_events'),
      branches,
    ],
  },
  { slug: 'external-wiki', title: 'External wiki', params: [req('external_wiki_url')] },
  { slug: 'team-inbox', title: 'Team inbox', params: [req('token'), bool('push_events')] },
  {
    slug: 'status-check',
    title: 'Status check',
    params: [req('token'), req('repository_url'), bool('static_context')],
  },
  {
    slug: 'room-chat',
    title: 'Room chat',
    params: [
      req('token'),
      str('color'),
      bool('notify'),
      str('room'),
      str('api_version'),
      str('server'),
      ...CHAT_EVENTS.map(bool),
    ],
  },
];

/** The event flags every list entry shows; a kind's own parameters of these names set them. */
export const EVENT_FLAGS = ['commit_events', ...CHAT_EVENTS, 'job_events', 'comment_on_event_enabled'] as const;
export type EventFlag = (typeof EVENT_FLAGS)[number];

/** Off unless set: the confidential events; everything else on, as for a fresh integration on the service. */
export function defaultEvents(): Record<EventFlag, boolean> {
  return Object.fromEntries(EVENT_FLAGS.map((flag) => [flag, !flag.startsWith('confidential_')])) as Record<
    EventFlag,
    boolean
  >;
}

export interface StoredIntegration {
  id: number;
  project_id: number;
  slug: string;
  created_at: Date;
  updated_at: Date;
  events: Record<EventFlag, boolean>;
  /** Every other parameter as it was sent, credentials included. */
  properties: Record<string, string | boolean>;
}

class IntegrationState {
  /** `${projectId}:${slug}` → the active integration. */
  readonly active = new Map<string, StoredIntegration>();
}

/** Demo integrations: two on acme/web (so the list has something to show), one with credentials on payments-api. */
export function seedIntegrations(store: Store, epoch: number): void {
  const DEMO: Array<{
    project: string;
    slug: string;
    days: number;
    properties: Record<string, string | boolean>;
    events?: Partial<Record<EventFlag, boolean>>;
  }> = [
    {
      project: 'acme/web',
      slug: 'emails-on-push',
      days: 90,
      properties: { recipients: 'dev@acme.example qa@acme.example', branches_to_be_notified: 'default' },
    },
    {
      project: 'acme/web',
      slug: 'webhook-chat',
      days: 40,
      properties: { webhook: 'https://chat.example/hooks/T0ACME/B0WEB/s3cr3tpath', notify_only_broken_pipelines: true },
      events: { pipeline_events: true, issues_events: false, note_events: false },
    },
    {
      project: 'acme/platform/payments-api',
      slug: 'build-server',
      days: 120,
      properties: {
        build_server_url: 'https://builds.acme.example',
        build_key: 'PAY-BUILD',
        username: 'ci-bot',
        password: 'hunter2-build',
      },
    },
  ];
  for (const spec of DEMO) {
    const project = store.findProject(spec.project)!;
    const at = new Date(epoch - spec.days * 24 * 60 * 60 * 1000);
    const events = { ...defaultEvents(), ...spec.events };
    integrationStateOf(store).active.set(`${project.id}:${spec.slug}`, {
      id: store.nextId('integration'),
      project_id: project.id,
      slug: spec.slug,
      created_at: at,
      updated_at: at,
      events,
      properties: spec.properties,
    });
  }
}

/** Active project integrations. */
export const integrationStateOf = areaState('integrations', () => new IntegrationState());
