// The sandbox's in-memory data: users and tokens, groups, projects (each with a git repository), pipelines,
// releases, milestones, commit comments, labels, issues, merge requests, epics, label events and notification
// settings, plus the access and visibility rules every route applies.
import { join } from 'node:path';
import { EpicState } from '../areas/work-items/epic-state.js';
import { GitRepo } from '../git/repo.js';
import { GroupExports } from '../areas/group-import-export/state.js';
import { IntegrationState } from '../areas/integrations/state.js';
import { defaultApplicationSettings, type ApplicationSettings } from '../areas/application-settings/state.js';
import type { AuditEvent } from '../areas/audit-events/state.js';
import type { BroadcastMessage } from '../areas/broadcast-messages/state.js';
import type { GroupVariable } from '../areas/group-variables/state.js';
import type { Package } from '../areas/packages/state.js';
import type { Snippet } from '../areas/snippets/state.js';
import type { SshKey } from '../areas/ssh-keys/state.js';
import { PasswordBook } from '../areas/users/state.js';

/** Member access levels; 50 (owner) exists on groups and on personal projects. */
export const ACCESS = { none: 0, guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;
export const ACCESS_LEVELS = [10, 20, 30, 40, 50] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

export type Visibility = 'private' | 'internal' | 'public';

export interface Membership {
  access_level: AccessLevel;
  expires_at: string | null;
  created_at: Date;
}

export interface Identity {
  provider: string;
  extern_uid: string;
  saml_provider_id?: number | null;
}

export interface User {
  id: number;
  /** Id of the user's personal namespace (groups and personal namespaces share one id space). */
  namespace_id: number;
  username: string;
  name: string;
  email: string;
  state: 'active' | 'blocked';
  is_admin: boolean;
  /** Personal access tokens; a request authenticates with any of them. */
  tokens: string[];
  created_at: Date;
  /** Last change by an administrator or SCIM (order_by=updated_at); absent: never changed since created_at. */
  updated_at?: Date;
  bio: string;
  location: string;
  public_email: string;
  organization: string;
  website_url: string;
  social_messenger: string;
  social_network: string;
  social_microblog: string;
  last_sign_in_at: Date | null;
  current_sign_in_at: Date | null;
  last_activity_on: string | null;
  confirmed_at: Date | null;
  identities: Identity[];
  external: boolean;
  private_profile: boolean;
  can_create_group: boolean;
  can_create_project: boolean;
  projects_limit: number;
  two_factor_enabled: boolean;
  theme_id: number;
  color_scheme_id: number;
  note: string | null;
  /** An uploaded avatar (absent: the gravatar of the e-mail). */
  avatar?: { filename: string; content_type: string; content: Buffer };
  /** Higher-tier CI minute quotas (absent: null, the instance default). */
  shared_runners_minutes_limit?: number | null;
  extra_shared_runners_minutes_limit?: number | null;
  custom_attributes: Record<string, string>;
  status: { emoji: string | null; message: string | null };
}

export interface Group {
  id: number;
  name: string;
  path: string;
  full_path: string;
  full_name: string;
  description: string;
  visibility: Visibility;
  parent_id: number | null;
  members: Map<number, Membership>;
  created_at: Date;
  share_with_group_lock: boolean;
  require_two_factor_authentication: boolean;
  two_factor_grace_period: number;
  project_creation_level: 'noone' | 'maintainer' | 'developer';
  subgroup_creation_level: string;
  auto_devops_enabled: boolean | null;
  emails_disabled: boolean | null;
  mentions_disabled: boolean | null;
  lfs_enabled: boolean;
  request_access_enabled: boolean;
  custom_attributes: Record<string, string>;
}

export type Namespace = { kind: 'group'; group: Group } | { kind: 'user'; user: User };

export type PipelineStatus = 'running' | 'pending' | 'success' | 'failed' | 'canceled' | 'skipped';
export const PIPELINE_STATUSES = ['running', 'pending', 'success', 'failed', 'canceled', 'skipped'] as const;

export interface PipelineVariable {
  key: string;
  variable_type: 'env_var' | 'file';
  value: string;
}

export interface Pipeline {
  id: number;
  project_id: number;
  status: PipelineStatus;
  ref: string;
  sha: string;
  before_sha: string;
  tag: boolean;
  name: string | null;
  yaml_errors: string | null;
  user_id: number;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  committed_at: Date | null;
  /** Seconds; null until the pipeline finished. */
  duration: number | null;
  coverage: string | null;
  variables: PipelineVariable[];
}

export interface Milestone {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string;
  state: 'active' | 'closed';
  created_at: Date;
  updated_at: Date;
  due_date: string | null;
  start_date: string | null;
}

export interface ReleaseLink {
  id: number;
  name: string;
  url: string;
}

export interface Release {
  id: number;
  tag_name: string;
  name: string;
  description: string;
  created_at: Date;
  released_at: Date;
  author_id: number;
  milestone_ids: number[];
  links: ReleaseLink[];
}

export interface CommitComment {
  id: number;
  /** Full SHA of the commit the comment is attached to. */
  sha: string;
  note: string;
  author_id: number;
  path: string | null;
  line: number | null;
  line_type: 'new' | null;
  created_at: Date;
}

export interface Project {
  id: number;
  name: string;
  path: string;
  description: string;
  namespace: Namespace;
  full_path: string;
  name_with_namespace: string;
  visibility: Visibility;
  default_branch: string;
  archived: boolean;
  created_at: Date;
  last_activity_at: Date;
  creator_id: number;
  members: Map<number, Membership>;
  tag_list: string[];
  starred_by: Set<number>;
  forks_count: number;
  issues_enabled: boolean;
  merge_requests_enabled: boolean;
  jobs_enabled: boolean;
  wiki_enabled: boolean;
  snippets_enabled: boolean;
  container_registry_enabled: boolean;
  packages_enabled: boolean;
  merge_method: 'merge' | 'rebase_merge' | 'ff';
  only_allow_merge_if_pipeline_succeeds: boolean;
  /** Language name → percentage of the code, as the service reports it. */
  languages: Record<string, number>;
  custom_attributes: Record<string, string>;
  runners_token: string;
  repo: GitRepo;
  pipelines: Pipeline[];
  releases: Release[];
  milestones: Milestone[];
  commitComments: CommitComment[];
}

export interface Label {
  id: number;
  name: string;
  color: string;
  description: string | null;
  /** Lower sorts first (order_by=priority / label_priority); null: no priority. */
  priority: number | null;
}

/** An award emoji on an issue or merge request (my_reaction_emoji; upvotes are thumbsup, downvotes thumbsdown). */
export interface Award {
  user_id: number;
  name: string;
}

/** What issues and merge requests have in common, and what their shared list filters read. */
export interface WorkItem {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string;
  author_id: number;
  assignee_ids: number[];
  /** Label names, in the order they were added; changed only through Store.setLabels (it records label events). */
  labels: string[];
  milestone_id: number | null;
  created_at: Date;
  updated_at: Date;
  closed_at: Date | null;
  closed_by_id: number | null;
  awards: Award[];
  user_notes_count: number;
  discussion_locked: boolean | null;
}

export interface Issue extends WorkItem {
  state: 'opened' | 'closed';
  confidential: boolean;
  due_date: string | null;
  weight: number | null;
  relative_position: number;
  moved_to_id: number | null;
  merge_requests_count: number;
  /** Markdown task list counts. */
  tasks: { count: number; completed_count: number };
  time_estimate: number;
  total_time_spent: number;
}

export interface MergeRequest extends WorkItem {
  state: 'opened' | 'closed' | 'locked' | 'merged';
  source_branch: string;
  target_branch: string;
  merged_by_id: number | null;
  merged_at: Date | null;
  sha: string | null;
  merge_commit_sha: string | null;
  squash: boolean;
  has_conflicts: boolean;
  /** Users asked to approve, and those who did (higher-tier filters approver_ids / approved_by_ids). */
  approver_ids: number[];
  approved_by_ids: number[];
}

export interface Epic {
  id: number;
  iid: number;
  group_id: number;
  title: string;
  description: string;
  state: 'opened' | 'closed';
  author_id: number;
  labels: string[];
  start_date_is_fixed: boolean;
  start_date_fixed: string | null;
  due_date_is_fixed: boolean;
  due_date_fixed: string | null;
  parent_id: number | null;
  created_at: Date;
  updated_at: Date;
  closed_at: Date | null;
}

export type LabelEventResource =
  | { kind: 'Issue'; item: Issue }
  | { kind: 'MergeRequest'; item: MergeRequest }
  | { kind: 'Epic'; item: Epic };

export interface LabelEvent {
  id: number;
  resource_type: LabelEventResource['kind'];
  resource_id: number;
  user_id: number;
  created_at: Date;
  label: Label;
  action: 'add' | 'remove';
}

export const NOTIFICATION_LEVELS = ['disabled', 'participating', 'watch', 'global', 'mention', 'custom'] as const;
export type NotificationLevel = (typeof NOTIFICATION_LEVELS)[number];
/** The email events a `custom` level switches; new_epic belongs to the higher tier. */
export const NOTIFICATION_EVENTS = [
  'new_note', 'new_issue', 'reopen_issue', 'close_issue', 'reassign_issue', 'issue_due', 'new_merge_request',
  'push_to_merge_request', 'reopen_merge_request', 'close_merge_request', 'reassign_merge_request',
  'merge_merge_request', 'failed_pipeline', 'success_pipeline', 'new_epic',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

export interface NotificationSetting {
  level: NotificationLevel;
  events: Record<NotificationEvent, boolean>;
}

/** Where a notification setting applies: the user's global one, or one group or project. */
export type NotificationScope = { kind: 'global' } | { kind: 'group'; id: number } | { kind: 'project'; id: number };

export type NewUser = Pick<User, 'username' | 'name' | 'email'> & Partial<Omit<User, 'id' | 'namespace_id'>>;
export type NewGroup = Pick<Group, 'name' | 'path'> & { parent?: Group } & Partial<
  Omit<Group, 'id' | 'full_path' | 'full_name' | 'parent_id' | 'members'>
>;
export type NewProject = Pick<Project, 'name' | 'path' | 'namespace' | 'creator_id'> &
  Partial<Omit<Project, 'id' | 'namespace' | 'full_path' | 'name_with_namespace' | 'repo' | 'members'>>;

function randomToken(): string {
  return Array.from({ length: 20 }, () => Math.floor(Math.random() * 36).toString(36)).join('');
}

export class Store {
  /** Base URL of the running sandbox (http://127.0.0.1:PORT), used for web_url fields. */
  baseUrl = '';
  readonly users: User[] = [];
  readonly groups: Group[] = [];
  readonly projects: Project[] = [];
  /** SCIM bearer token → id of the group it provisions. */
  readonly scimTokens = new Map<string, number>();
  /** Group id → id of its SAML provider: the groups with single sign-on, which SCIM provisions (scim-data.ts). */
  readonly samlProviders = new Map<number, number>();
  /** Users' SSH public keys (ssh-keys-data.ts). */
  readonly sshKeys: SshKey[] = [];
  /** Users' password hashes (users-data.ts). */
  readonly passwords = new PasswordBook();
  /** Labels by the group or project that defines them ('group:7', 'project:3'); a project also sees its groups' labels. */
  readonly labels = new Map<string, Label[]>();
  readonly issues: Issue[] = [];
  readonly mergeRequests: MergeRequest[] = [];
  readonly epics: Epic[] = [];
  /** Epic to-dos and licensing (./epics.ts). */
  readonly epicState = new EpicState();
  /** Active project integrations (./integrations.ts). */
  readonly integrationState = new IntegrationState();
  readonly labelEvents: LabelEvent[] = [];
  /** 'userId:global', 'userId:group:7', 'userId:project:3' → the setting; absent means the default. */
  readonly notificationSettings = new Map<string, NotificationSetting>();
  /** Project snippets (snippets-data.ts). */
  readonly snippets: Snippet[] = [];
  /** Packages and their files (packages-data.ts). */
  readonly packages: Package[] = [];
  /** Instance banners and notifications (broadcast-messages-data.ts). */
  readonly broadcastMessages: BroadcastMessage[] = [];
  /** Group CI/CD variables (group-variables-data.ts). */
  readonly groupVariables: GroupVariable[] = [];
  /** Audit events, oldest first; routes add theirs with recordAuditEvent (audit-events-data.ts). */
  readonly auditEvents: AuditEvent[] = [];
  /** The instance's application settings (application-settings-data.ts). */
  readonly applicationSettings: ApplicationSettings = defaultApplicationSettings(new Date());
  /** Group export archives (group-export-data.ts). */
  readonly groupExports = new GroupExports();
  private readonly counters = new Map<string, number>();

  constructor(readonly dataDir: string) {}

  /** The next id of a kind ('user', 'pipeline', …); ids are never reused within a sandbox. */
  nextId(kind: string): number {
    const next = (this.counters.get(kind) ?? 0) + 1;
    this.counters.set(kind, next);
    return next;
  }

  addUser(input: NewUser): User {
    const now = new Date();
    const user: User = {
      state: 'active',
      is_admin: false,
      tokens: [],
      created_at: now,
      bio: '',
      location: '',
      public_email: '',
      organization: '',
      website_url: '',
      social_messenger: '',
      social_network: '',
      social_microblog: '',
      last_sign_in_at: null,
      current_sign_in_at: null,
      last_activity_on: null,
      confirmed_at: now,
      identities: [],
      external: false,
      private_profile: false,
      can_create_group: true,
      can_create_project: true,
      projects_limit: 100000,
      two_factor_enabled: false,
      theme_id: 1,
      color_scheme_id: 1,
      note: null,
      custom_attributes: {},
      status: { emoji: null, message: null },
      ...input,
      id: this.nextId('user'),
      namespace_id: this.nextId('namespace'),
    };
    this.users.push(user);
    return user;
  }

  addGroup(input: NewGroup): Group {
    const { parent, ...fields } = input;
    const group: Group = {
      description: '',
      visibility: 'private',
      created_at: new Date(),
      share_with_group_lock: false,
      require_two_factor_authentication: false,
      two_factor_grace_period: 48,
      project_creation_level: 'developer',
      subgroup_creation_level: 'maintainer',
      auto_devops_enabled: null,
      emails_disabled: null,
      mentions_disabled: null,
      lfs_enabled: true,
      request_access_enabled: true,
      custom_attributes: {},
      ...fields,
      id: this.nextId('namespace'),
      parent_id: parent ? parent.id : null,
      full_path: parent ? `${parent.full_path}/${input.path}` : input.path,
      full_name: parent ? `${parent.full_name} / ${input.name}` : input.name,
      members: new Map(),
    };
    this.groups.push(group);
    return group;
  }

  /** Where the repository of a project lives. */
  repositoryDir(projectId: number): string {
    return join(this.dataDir, 'repositories', `${projectId}.git`);
  }

  /**
   * Creates the project and a fresh bare git repository under dataDir, or adopts `existing` when given
   * (a repository already placed at repositoryDir(id), e.g. copied from a seed template).
   */
  async addProject(input: NewProject, existing?: (dir: string) => Promise<GitRepo>): Promise<Project> {
    const id = this.nextId('project');
    const defaultBranch = input.default_branch ?? 'main';
    const dir = this.repositoryDir(id);
    const repo = existing ? await existing(dir) : await GitRepo.init(dir, { defaultBranch });
    const ns = input.namespace;
    const nsPath = ns.kind === 'group' ? ns.group.full_path : ns.user.username;
    const nsName = ns.kind === 'group' ? ns.group.full_name : ns.user.name;
    const now = new Date();
    const project: Project = {
      description: '',
      visibility: 'private',
      archived: false,
      created_at: now,
      last_activity_at: now,
      tag_list: [],
      starred_by: new Set(),
      forks_count: 0,
      issues_enabled: true,
      merge_requests_enabled: true,
      jobs_enabled: true,
      wiki_enabled: true,
      snippets_enabled: true,
      container_registry_enabled: true,
      packages_enabled: true,
      merge_method: 'merge',
      only_allow_merge_if_pipeline_succeeds: false,
      languages: {},
      custom_attributes: {},
      runners_token: `GR1348941${randomToken()}`,
      pipelines: [],
      releases: [],
      milestones: [],
      commitComments: [],
      ...input,
      id,
      default_branch: defaultBranch,
      full_path: `${nsPath}/${input.path}`,
      name_with_namespace: `${nsName} / ${input.name}`,
      members: new Map(),
      repo,
    };
    this.projects.push(project);
    return project;
  }

  /** Labels a project can use: its own, then those of its groups (nearest first); the first of a name wins. */
  labelsFor(owner: { kind: 'project'; project: Project } | { kind: 'group'; group: Group }): Label[] {
    const groups = owner.kind === 'group' ? this.groupChain(owner.group)
      : owner.project.namespace.kind === 'group' ? this.groupChain(owner.project.namespace.group) : [];
    const keys = [...(owner.kind === 'project' ? [`project:${owner.project.id}`] : []), ...groups.map((g) => `group:${g.id}`)];
    const seen = new Set<string>();
    return keys.flatMap((key) => this.labels.get(key) ?? []).filter((label) => {
      const name = label.name.toLowerCase();
      return seen.has(name) ? false : (seen.add(name), true);
    });
  }

  addLabel(owner: string, input: Omit<Label, 'id'>): Label {
    const label = { ...input, id: this.nextId('label') };
    this.labels.set(owner, [...(this.labels.get(owner) ?? []), label]);
    return label;
  }

  /**
   * Sets the labels of an issue, merge request or epic and records one label event per label added or removed,
   * as the service does whenever labels change. Names match known labels case-insensitively (the label's own
   * spelling is kept); an unknown name is created as a label of the project or group.
   */
  setLabels(resource: LabelEventResource, names: readonly string[], user: User, at: Date): void {
    const owner = resource.kind === 'Epic'
      ? { kind: 'group' as const, group: this.findGroup(String(resource.item.group_id))! }
      : { kind: 'project' as const, project: this.findProject(String(resource.item.project_id))! };
    const known = this.labelsFor(owner);
    const wanted: Label[] = [];
    for (const name of names) {
      const existing = known.find((l) => l.name.toLowerCase() === name.toLowerCase())
        ?? this.addLabel(owner.kind === 'group' ? `group:${owner.group.id}` : `project:${owner.project.id}`,
          { name, color: '#6699cc', description: null, priority: null });
      if (!known.includes(existing)) known.push(existing);
      if (!wanted.includes(existing)) wanted.push(existing);
    }
    const current = resource.item.labels.map((name) => known.find((l) => l.name === name)!).filter(Boolean);
    const record = (label: Label, action: 'add' | 'remove') => this.labelEvents.push({
      id: this.nextId('label_event'), resource_type: resource.kind, resource_id: resource.item.id, user_id: user.id,
      created_at: at, label, action,
    });
    for (const label of current) if (!wanted.includes(label)) record(label, 'remove');
    for (const label of wanted) if (!current.includes(label)) record(label, 'add');
    resource.item.labels = wanted.map((l) => l.name);
    resource.item.updated_at = at;
  }

  labelEventsOf(kind: LabelEventResource['kind'], id: number): LabelEvent[] {
    return this.labelEvents.filter((e) => e.resource_type === kind && e.resource_id === id);
  }

  /** A user's notification setting at a scope; the default when never set (participating globally, else global). */
  notificationSetting(user: User, scope: NotificationScope): NotificationSetting {
    const stored = this.notificationSettings.get(notificationKey(user, scope));
    if (stored) return stored;
    const events = Object.fromEntries(NOTIFICATION_EVENTS.map((e) => [e, false])) as Record<NotificationEvent, boolean>;
    return { level: scope.kind === 'global' ? 'participating' : 'global', events };
  }

  saveNotificationSetting(user: User, scope: NotificationScope, setting: NotificationSetting): void {
    this.notificationSettings.set(notificationKey(user, scope), setting);
  }

  userByToken(token: string): User | undefined {
    return this.users.find((user) => user.tokens.includes(token));
  }

  /** A numeric id or a username (case-insensitive), as `sudo` and `:user_id` accept. */
  findUser(idOrUsername: string): User | undefined {
    if (/^\d+$/.test(idOrUsername)) return this.users.find((user) => user.id === Number(idOrUsername));
    const name = idOrUsername.toLowerCase();
    return this.users.find((user) => user.username.toLowerCase() === name);
  }

  /** A numeric id or a full path (case-insensitive), as `:id` accepts once decoded. */
  findGroup(idOrPath: string): Group | undefined {
    if (/^\d+$/.test(idOrPath)) return this.groups.find((group) => group.id === Number(idOrPath));
    const path = idOrPath.toLowerCase();
    return this.groups.find((group) => group.full_path.toLowerCase() === path);
  }

  findProject(idOrPath: string): Project | undefined {
    if (/^\d+$/.test(idOrPath)) return this.projects.find((project) => project.id === Number(idOrPath));
    const path = idOrPath.toLowerCase();
    return this.projects.find((project) => project.full_path.toLowerCase() === path);
  }

  /** The group and its ancestors, nearest first. */
  groupChain(group: Group): Group[] {
    const chain: Group[] = [];
    for (let g: Group | undefined = group; g; g = g.parent_id === null ? undefined : this.findGroup(String(g.parent_id))) {
      chain.push(g);
    }
    return chain;
  }

  /** Groups below this one, at any depth. */
  descendantGroups(group: Group): Group[] {
    return this.groups.filter((g) => g !== group && this.groupChain(g).includes(group));
  }

  /** Effective group access: the highest of direct and inherited memberships (0 when none). */
  groupAccess(user: User | null, group: Group): number {
    if (!user) return ACCESS.none;
    return Math.max(ACCESS.none, ...this.groupChain(group).map((g) => g.members.get(user.id)?.access_level ?? 0));
  }

  /** Effective project access: direct membership, ancestor groups, or owner of the personal namespace. */
  projectAccess(user: User | null, project: Project): number {
    if (!user) return ACCESS.none;
    const ns = project.namespace;
    const inherited = ns.kind === 'group' ? this.groupAccess(user, ns.group) : ns.user.id === user.id ? ACCESS.owner : 0;
    return Math.max(project.members.get(user.id)?.access_level ?? 0, inherited);
  }

  canSeeProject(user: User | null, project: Project): boolean {
    if (project.visibility === 'public') return true;
    if (!user) return false;
    if (user.is_admin || project.visibility === 'internal') return true;
    return this.projectAccess(user, project) > 0;
  }

  /**
   * A private group is visible to its members, members of its ancestors, and members of anything below it
   * (a subgroup or project member must be able to see the path down to what they belong to).
   */
  canSeeGroup(user: User | null, group: Group): boolean {
    if (group.visibility === 'public') return true;
    if (!user) return false;
    if (user.is_admin || group.visibility === 'internal') return true;
    if (this.groupAccess(user, group) > 0) return true;
    const below = this.descendantGroups(group);
    if (below.some((g) => g.members.has(user.id))) return true;
    return this.projects.some(
      (p) => p.namespace.kind === 'group' && (p.namespace.group === group || below.includes(p.namespace.group)) && p.members.has(user.id),
    );
  }
}

function notificationKey(user: User, scope: NotificationScope): string {
  return scope.kind === 'global' ? `${user.id}:global` : `${user.id}:${scope.kind}:${scope.id}`;
}
