// Response shapes shared by several routes (users, namespaces, projects, milestones, pipelines), written
// field by field from the spec so that what the sandbox sends is what the service documents.
import { createHash } from 'node:crypto';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Group, Milestone, Pipeline, Project, Store, User } from './store.js';

/** A date as the service writes it (ISO 8601, UTC), or null. */
export const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

/** Text put into the service's *_html fields: &, <, >, " and ' as numeric character references. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The named fields of an entity as they are, in the order named: the key order of a view's JSON is the service's,
 * so a view lists its fields once rather than writing `name: entity.name` for each.
 */
export function pickFields<Entity, Key extends keyof Entity>(entity: Entity, keys: readonly Key[]): Pick<Entity, Key> {
  return Object.fromEntries(keys.map((key) => [key, entity[key]])) as Pick<Entity, Key>;
}

function avatarUrl(email: string): string {
  const hash = createHash('md5').update(email.trim().toLowerCase()).digest('hex');
  return `https://www.gravatar.com/avatar/${hash}?s=80&d=identicon`;
}

/** Public form: id, username, name, state, avatar_url, web_url. */
export function userBasic(store: Store, user: User) {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: user.state,
    avatar_url: user.avatar
      ? `${store.baseUrl}/uploads/-/system/user/avatar/${user.id}/${encodeURIComponent(user.avatar.filename)}`
      : avatarUrl(user.email),
    web_url: `${store.baseUrl}/${user.username}`,
  };
}

/** Single-user form: the public form plus the profile. */
export function userDetailed(store: Store, user: User) {
  return {
    ...userBasic(store, user),
    created_at: iso(user.created_at),
    bio: user.bio,
    location: user.location,
    public_email: user.public_email,
    social_messenger: user.social_messenger,
    social_network: user.social_network,
    social_microblog: user.social_microblog,
    website_url: user.website_url,
    organization: user.organization,
  };
}

/** The short author form of a commit comment and a snippet, with the email and without the avatar. */
export function authorWithEmail(user: User | undefined) {
  return user
    ? {
        id: user.id,
        username: user.username,
        email: user.email,
        name: user.name,
        state: user.state,
        created_at: user.created_at.toISOString(),
      }
    : null;
}

/** What a user sees of themselves: the profile plus their own account details. */
export function userSelf(store: Store, user: User) {
  return {
    ...userDetailed(store, user),
    email: user.email,
    last_sign_in_at: iso(user.last_sign_in_at),
    confirmed_at: iso(user.confirmed_at),
    theme_id: user.theme_id,
    last_activity_on: user.last_activity_on,
    color_scheme_id: user.color_scheme_id,
    projects_limit: user.projects_limit,
    current_sign_in_at: iso(user.current_sign_in_at),
    identities: user.identities.map((identity) => ({ ...identity })),
    can_create_group: user.can_create_group,
    can_create_project: user.can_create_project,
    two_factor_enabled: user.two_factor_enabled,
    external: user.external,
    private_profile: user.private_profile,
  };
}

/** Administrator form. */
export function userAdmin(store: Store, user: User) {
  return {
    ...userSelf(store, user),
    is_admin: user.is_admin,
    current_sign_in_ip: user.current_sign_in_at ? '127.0.0.1' : null,
    last_sign_in_ip: user.last_sign_in_at ? '127.0.0.1' : null,
    shared_runners_minutes_limit: user.shared_runners_minutes_limit ?? null,
    extra_shared_runners_minutes_limit: user.extra_shared_runners_minutes_limit ?? null,
    note: user.note,
  };
}

export function groupWebUrl(store: Store, group: Group): string {
  return `${store.baseUrl}/groups/${group.full_path}`;
}

export function projectWebUrl(store: Store, project: Project): string {
  return `${store.baseUrl}/${project.full_path}`;
}

function namespaceView(store: Store, project: Project) {
  const ns = project.namespace;
  if (ns.kind === 'group') {
    return {
      id: ns.group.id,
      name: ns.group.name,
      path: ns.group.path,
      kind: 'group',
      full_path: ns.group.full_path,
      parent_id: ns.group.parent_id,
      avatar_url: null,
      web_url: groupWebUrl(store, ns.group),
    };
  }
  return {
    id: ns.user.namespace_id,
    name: ns.user.name,
    path: ns.user.username,
    kind: 'user',
    full_path: ns.user.username,
    parent_id: null,
    avatar_url: avatarUrl(ns.user.email),
    web_url: `${store.baseUrl}/${ns.user.username}`,
  };
}

/** Simple form (unauthenticated lists, simple=true). */
export function projectSimple(store: Store, project: Project, readmePath: string | null) {
  const webUrl = projectWebUrl(store, project);
  const host = new URL(store.baseUrl || 'http://localhost').hostname;
  return {
    id: project.id,
    description: project.description,
    name: project.name,
    name_with_namespace: project.name_with_namespace,
    path: project.path,
    path_with_namespace: project.full_path,
    created_at: iso(project.created_at),
    default_branch: project.default_branch,
    tag_list: [...project.tag_list],
    ssh_url_to_repo: `git@${host}:${project.full_path}.git`,
    http_url_to_repo: `${webUrl}.git`,
    web_url: webUrl,
    readme_url: readmePath === null ? null : `${webUrl}/-/blob/${project.default_branch}/${readmePath}`,
    avatar_url: null,
    forks_count: project.forks_count,
    star_count: project.starred_by.size,
    last_activity_at: iso(project.last_activity_at),
  };
}

interface ProjectStatistics {
  commit_count: number;
  storage_size: number;
  repository_size: number;
  wiki_size: number;
  lfs_objects_size: number;
  job_artifacts_size: number;
  packages_size: number;
}

interface FullProjectExtras {
  readmePath: string | null;
  /** The caller's direct project membership level and inherited group level (null when none). */
  projectAccess: number | null;
  groupAccess: number | null;
  /** The caller's effective access is maintainer or more (inherited and administrator access count): runners_token. */
  maintainer: boolean;
  /** Given when statistics=true was asked for and the caller may see them. */
  statistics?: ProjectStatistics;
  /** Given when with_custom_attributes=true was asked for by an administrator. */
  withCustomAttributes?: boolean;
}

/** Full form: the simple form plus settings, namespace, permissions and links. */
export function projectFull(store: Store, project: Project, extras: FullProjectExtras) {
  const api = `${store.baseUrl}/api/v4/projects/${project.id}`;
  // A group's project is owned by no one person: the spec's owner is then the user who created it.
  const owner =
    project.namespace.kind === 'user' ? project.namespace.user : (store.findUser(String(project.creator_id)) ?? null);
  const access = (level: number | null) => (level === null ? null : { access_level: level, notification_level: 3 });
  return {
    ...projectSimple(store, project, extras.readmePath),
    visibility: project.visibility,
    ...(owner ? { owner: { id: owner.id, name: owner.name, created_at: iso(owner.created_at) } } : {}),
    namespace: namespaceView(store, project),
    _links: {
      self: api,
      issues: `${api}/issues`,
      merge_requests: `${api}/merge_requests`,
      repo_branches: `${api}/repository/branches`,
      labels: `${api}/labels`,
      events: `${api}/events`,
      members: `${api}/members`,
    },
    archived: project.archived,
    issues_enabled: project.issues_enabled,
    open_issues_count: store.openIssuesCount(project),
    merge_requests_enabled: project.merge_requests_enabled,
    jobs_enabled: project.jobs_enabled,
    wiki_enabled: project.wiki_enabled,
    snippets_enabled: project.snippets_enabled,
    can_create_merge_request_in: extras.projectAccess !== null || extras.groupAccess !== null,
    resolve_outdated_diff_discussions: false,
    container_registry_enabled: project.container_registry_enabled,
    creator_id: project.creator_id,
    import_status: 'none',
    import_error: null,
    permissions: { project_access: access(extras.projectAccess), group_access: access(extras.groupAccess) },
    shared_runners_enabled: true,
    runners_token: extras.maintainer ? project.runners_token : undefined,
    ci_default_git_depth: 50,
    public_jobs: project.public_jobs ?? true,
    shared_with_groups: [],
    only_allow_merge_if_pipeline_succeeds: project.only_allow_merge_if_pipeline_succeeds,
    only_allow_merge_if_all_discussions_are_resolved: false,
    remove_source_branch_after_merge: true,
    request_access_enabled: true,
    merge_method: project.merge_method,
    auto_devops_enabled: false,
    auto_devops_deploy_strategy: 'continuous',
    repository_storage: 'default',
    approvals_before_merge: 0,
    mirror: false,
    mirror_user_id: null,
    mirror_trigger_builds: false,
    only_mirror_protected_branches: false,
    mirror_overwrites_diverged_branches: false,
    external_authorization_classification_label: null,
    packages_enabled: project.packages_enabled,
    service_desk_enabled: false,
    service_desk_address: null,
    autoclose_referenced_issues: true,
    suggestion_commit_message: null,
    ...(extras.statistics ? { statistics: extras.statistics } : {}),
    ...(extras.withCustomAttributes
      ? { custom_attributes: Object.entries(project.custom_attributes).map(([key, value]) => ({ key, value })) }
      : {}),
  };
}

/** Path of the README at the tip of the default branch, or null (one git process). */
export async function findReadme(project: Project): Promise<string | null> {
  const candidates = ['README.md', 'README', 'README.txt'];
  const { stdout } = await project.repo.run(['cat-file', '--batch-check'], {
    input: candidates.map((name) => `refs/heads/${project.default_branch}:${name}\n`).join(''),
  });
  const answers = stdout.toString('utf8').split('\n');
  const index = answers.findIndex((line) => / blob \d+$/.test(line));
  return index === -1 ? null : candidates[index];
}

/**
 * Bytes of the files below dir. Writes to the repository come and go meanwhile (temporary indexes and worktrees,
 * lock files): an entry that vanished between listing and reading counts as 0 instead of failing the request.
 */
async function directorySize(dir: string): Promise<number> {
  let total = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    total += entry.isDirectory()
      ? await directorySize(path)
      : await lstat(path).then(
          (info) => info.size,
          () => 0,
        );
  }
  return total;
}

export async function projectStatistics(project: Project): Promise<ProjectStatistics> {
  const { stdout } = await project.repo.run(['rev-list', '--count', '--all'], { okCodes: [128] });
  const repositorySize = await directorySize(project.repo.dir);
  return {
    commit_count: Number(stdout.toString('utf8').trim()) || 0,
    storage_size: repositorySize,
    repository_size: repositorySize,
    wiki_size: 0,
    lfs_objects_size: 0,
    job_artifacts_size: 0,
    packages_size: 0,
  };
}

export function milestoneView(store: Store, project: Project, milestone: Milestone) {
  return {
    id: milestone.id,
    iid: milestone.iid,
    project_id: milestone.project_id,
    title: milestone.title,
    description: milestone.description,
    state: milestone.state,
    created_at: iso(milestone.created_at),
    updated_at: iso(milestone.updated_at),
    due_date: milestone.due_date,
    start_date: milestone.start_date,
    web_url: `${projectWebUrl(store, project)}/-/milestones/${milestone.iid}`,
  };
}

/** List form: id, status, ref, sha, web_url, created_at, updated_at. */
export function pipelineBasic(store: Store, project: Project, pipeline: Pipeline) {
  return {
    id: pipeline.id,
    status: pipeline.status,
    ref: pipeline.ref,
    sha: pipeline.sha,
    web_url: `${projectWebUrl(store, project)}/-/pipelines/${pipeline.id}`,
    created_at: iso(pipeline.created_at),
    updated_at: iso(pipeline.updated_at),
  };
}

/** Full form (single read, create, retry, cancel). */
export function pipelineFull(store: Store, project: Project, pipeline: Pipeline) {
  const user = store.findUser(String(pipeline.user_id));
  return {
    ...pipelineBasic(store, project, pipeline),
    before_sha: pipeline.before_sha,
    tag: pipeline.tag,
    yaml_errors: pipeline.yaml_errors,
    user: user ? userBasic(store, user) : null,
    started_at: iso(pipeline.started_at),
    finished_at: iso(pipeline.finished_at),
    committed_at: iso(pipeline.committed_at),
    duration: pipeline.duration,
    coverage: pipeline.coverage,
  };
}
