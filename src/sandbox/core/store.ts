// The sandbox's core data: users and their tokens, groups, projects (each with a git repository, pipelines,
// releases, milestones and commit comments), ids, and the access and visibility rules every route applies. Areas
// (and the core's audit log, ./audit.ts) keep their own data in per-store slots (./area.ts); this module imports no
// area.
import { join } from 'node:path';
import { GitRepo } from '../git/repo.js';
import { type Clock, realClock } from '../../clock.js';
import type { TokenScope } from './scopes.js';

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

/** A personal access token and what it may do (the demo tokens have `api`: everything the user may). */
export interface PersonalAccessToken {
  token: string;
  scopes: readonly TokenScope[];
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
  tokens: PersonalAccessToken[];
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

type Namespace = { kind: 'group'; group: Group } | { kind: 'user'; user: User };

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
  /** What started it (push, api, web, merge_request_event); absent on seeded pipelines, shown as push. */
  source?: string;
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

interface ReleaseLink {
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
  /**
   * The full paths it had before a rename, oldest first: the service keeps each as a redirect, so a request naming
   * one still finds the project, until another project takes that path.
   */
  former_paths: string[];
  /** The full path it was made at, whatever it is called now (the runner's CI table is found by it). */
  made_at: string;
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
  /** Pipelines and jobs public to all who see the project ("public pipelines"; absent: on, the service's default). */
  public_jobs?: boolean;
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

type NewUser = Pick<User, 'username' | 'name' | 'email'> & Partial<Omit<User, 'id' | 'namespace_id'>>;
type NewGroup = Pick<Group, 'name' | 'path'> & { parent?: Group } & Partial<
    Omit<Group, 'id' | 'full_path' | 'full_name' | 'parent_id' | 'members'>
  >;
type NewProject = Pick<Project, 'name' | 'path' | 'namespace' | 'creator_id'> &
  Partial<
    Omit<Project, 'id' | 'namespace' | 'full_path' | 'former_paths' | 'name_with_namespace' | 'repo' | 'members'>
  >;

/** What the store asks of each area when it removes a user (SandboxArea extends it, ./area.ts). */
export interface UserRemovalHook {
  /** Forgets what the area keeps about a user the core is removing (keys, passwords, …). */
  readonly forgetUser?: (store: Store, user: User) => void;
}

function randomToken(): string {
  return Array.from({ length: 20 }, () => Math.floor(Math.random() * 36).toString(36)).join('');
}

export class Store {
  /** Base URL of the running sandbox (http://127.0.0.1:PORT), used for web_url fields. */
  baseUrl = '';
  readonly users: User[] = [];
  readonly groups: Group[] = [];
  readonly projects: Project[] = [];
  /** SCIM bearer token → id of the group it provisions (the SCIM routes authenticate with these). */
  readonly scimTokens = new Map<string, number>();
  /** When this store (the sandbox instance) was created. */
  readonly createdAt = new Date();
  /** The time the runner and the jobs read (an injected ManualClock in tests). */
  clock: Clock = realClock;
  /** Multiplies the simulated jobs' durations (1: a few seconds each; 0.1 ten times faster). */
  jobTimeScale = 1;
  /** Run before each API request is answered (the runner catches up with the clock), and when the sandbox closes. */
  readonly beforeRequest: Array<() => void> = [];
  readonly onClose: Array<() => void> = [];
  /** Told of every branch a project's repository moves after the seed (the runner starts a pipeline for it). */
  readonly onBranchMoved: Array<
    (project: Project, branch: string, sha: string, before: string | null) => Promise<void>
  > = [];
  /** How many open issues a project has: the issues live in an area, which sets this (views show 0 without it). */
  openIssuesCount: (project: Project) => number = () => 0;
  /** Per-area state by key (./area.ts areaState); the core never reads it. */
  private readonly slots = new Map<string, unknown>();
  /** Work the sandbox started on its own (an auto-merge when a pipeline passed), not yet finished. */
  private readonly background = new Set<Promise<void>>();
  private readonly counters = new Map<string, number>();

  /**
   * `areas` are told when a user is removed (SandboxArea.forgetUser); the server passes every area
   * (areas/index.ts), a store built only for the seed template passes none.
   */
  constructor(
    readonly dataDir: string,
    private readonly areas: readonly UserRemovalHook[] = [],
  ) {}

  /**
   * Keeps track of work the sandbox started by itself; `work` handles its own failures. Each request waits for it
   * (settled()) before it is answered, so no answer shows such a change half made.
   */
  track(work: Promise<void>): void {
    const tracked: Promise<void> = work.catch(() => undefined).finally(() => this.background.delete(tracked));
    this.background.add(tracked);
  }

  /** Resolves once no tracked work is left (work started meanwhile included). */
  async settled(): Promise<void> {
    while (this.background.size > 0) await Promise.all([...this.background]);
  }

  /** An area's state on this store, created by `init` on first use; use areaState() (./area.ts), not this. */
  slot<T>(key: string, init: () => T): T {
    if (!this.slots.has(key)) this.slots.set(key, init());
    return this.slots.get(key) as T;
  }

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
      former_paths: [],
      made_at: `${nsPath}/${input.path}`,
      name_with_namespace: `${nsName} / ${input.name}`,
      members: new Map(),
      repo,
    };
    repo.onBranchMoved = async (branch, sha, before) => {
      for (const listener of this.onBranchMoved) await listener(project, branch, sha, before);
    };
    this.projects.push(project);
    return project;
  }

  /** Groups whose only owner is this user: a soft delete would leave them ownerless (409); a hard delete takes them along. */
  groupsSolelyOwned(user: User): Group[] {
    return this.groups.filter((group) => {
      const owners = [...group.members].filter(([, m]) => m.access_level === ACCESS.owner).map(([id]) => id);
      return owners.length === 1 && owners[0] === user.id;
    });
  }

  /**
   * Removes a user: account, tokens, memberships, and what each area keeps about them (SandboxArea.forgetUser:
   * keys, passwords, …). Their issues, comments and other contributions stay and show no author, as the service
   * shows them under its ghost user. A hard delete also removes the groups they solely own, with the subgroups and
   * projects inside.
   */
  removeUser(user: User, hard: boolean): void {
    if (hard) {
      const doomed = new Set(this.groupsSolelyOwned(user).flatMap((g) => [g, ...this.descendantGroups(g)]));
      removeWhere(this.projects, (p) => p.namespace.kind === 'group' && doomed.has(p.namespace.group));
      removeWhere(this.groups, (g) => doomed.has(g));
    }
    removeWhere(this.projects, (p) => p.namespace.kind === 'user' && p.namespace.user === user);
    for (const holder of [...this.groups, ...this.projects]) holder.members.delete(user.id);
    for (const area of this.areas) area.forgetUser?.(this, user);
    removeWhere(this.users, (u) => u === user);
  }

  /** The user a personal access token belongs to, with the token's scopes. */
  personalAccessToken(token: string): { user: User; scopes: readonly TokenScope[] } | undefined {
    for (const user of this.users) {
      const found = user.tokens.find((t) => t.token === token);
      if (found) return { user, scopes: found.scopes };
    }
    return undefined;
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

  /** A numeric id or a full path, the project's own first, else one it had before a rename (the service's redirect). */
  findProject(idOrPath: string): Project | undefined {
    if (/^\d+$/.test(idOrPath)) return this.projects.find((project) => project.id === Number(idOrPath));
    const path = idOrPath.toLowerCase();
    return (
      this.projects.find((project) => project.full_path.toLowerCase() === path) ??
      this.projects.find((project) => project.former_paths.some((former) => former.toLowerCase() === path))
    );
  }

  /**
   * Renames a project (its name, its path, or both, within its namespace), as the service's update does: the old
   * full path becomes a redirect to it. The caller checked that no other project has the new name or path.
   */
  renameProject(project: Project, change: { name?: string; path?: string }): void {
    const ns = project.namespace;
    const nsPath = ns.kind === 'group' ? ns.group.full_path : ns.user.username;
    const nsName = ns.kind === 'group' ? ns.group.full_name : ns.user.name;
    if (change.path !== undefined && change.path !== project.path) {
      const fullPath = `${nsPath}/${change.path}`;
      const other = (former: string) => former.toLowerCase() !== fullPath.toLowerCase();
      // The path is this project's now: no longer a redirect to another, nor to itself (one it had before).
      for (const each of this.projects) each.former_paths = each.former_paths.filter(other);
      project.former_paths = [...project.former_paths, project.full_path].filter(other);
      project.path = change.path;
      project.full_path = fullPath;
    }
    if (change.name !== undefined) {
      project.name = change.name;
      project.name_with_namespace = `${nsName} / ${change.name}`;
    }
  }

  /** The group and its ancestors, nearest first. */
  groupChain(group: Group): Group[] {
    const chain: Group[] = [];
    for (
      let g: Group | undefined = group;
      g;
      g = g.parent_id === null ? undefined : this.findGroup(String(g.parent_id))
    ) {
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
    const inherited =
      ns.kind === 'group' ? this.groupAccess(user, ns.group) : ns.user.id === user.id ? ACCESS.owner : 0;
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
      (p) =>
        p.namespace.kind === 'group' &&
        (p.namespace.group === group || below.includes(p.namespace.group)) &&
        p.members.has(user.id),
    );
  }
}

function removeWhere<T>(list: T[], doomed: (item: T) => boolean): void {
  for (let i = list.length - 1; i >= 0; i--) if (doomed(list[i])) list.splice(i, 1);
}
