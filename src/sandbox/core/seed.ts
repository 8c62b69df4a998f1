// The core's demo data written into a store: the accounts (./demo-accounts.ts), groups and projects (./seed-projects.ts)
// with their git histories (one fast-import each, made once into a template every sandbox copies), pipelines,
// milestones and releases. Each area adds its own in its seed, run after this one by ../seed.ts.
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { copyFile, link, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitRepo } from '../git/repo.js';
import { cachedTemplate, seedCacheRoot, type SeedTemplateFiles } from './seed-cache.js';
import type { SeedContext } from './area.js';
import { DEMO_ACCOUNTS, DEMO_TOKENS } from './demo-accounts.js';
import { PROJECTS, type SeedFiles, type SeedProject } from './seed-projects.js';
import { Store, type Group, type Project, type User } from './store.js';

const DAY = 24 * 60 * 60 * 1000;
const MINUTE = 60 * 1000;

/** Midnight UTC today: seed dates count back from it so histories look recent yet are stable all day. */
function seedEpoch(): number {
  const now = Date.now();
  return now - (now % DAY);
}

interface WrittenCommit {
  sha: string;
  parent: string | null;
}

/** A project's seed history as one `git fast-import` stream, and each commit's parent (as an import mark). */
interface SeedHistory {
  stream: Buffer;
  parentMarks: Array<number | null>;
}

/**
 * The seed history of a project (branches, commits, merges, annotated tags) as a `git fast-import` stream: one
 * process per repository instead of several per commit keeps the sandbox quick to start, and the stream, a pure
 * function of the seed, names the template it makes (see seedTemplate).
 */
function historyStream(spec: SeedProject, epoch: number): SeedHistory {
  const stream: Buffer[] = [];
  const line = (text: string) => stream.push(Buffer.from(`${text}\n`));
  const data = (content: Buffer) => {
    line(`data ${content.length}`);
    stream.push(content, Buffer.from('\n'));
  };
  const tips = new Map<string, number>();
  // What each branch changed since it started: a merge writes the merged branch's changes over its own tree,
  // which is git's merge result as long as the two sides touched different files.
  const changedSinceStart = new Map<string, SeedFiles>();
  const parentMarks: Array<number | null> = [];
  spec.commits.forEach((commit, index) => {
    const mark = index + 1;
    const branch = commit.branch ?? 'main';
    const author = DEMO_ACCOUNTS.find((account) => account.username === commit.author);
    if (!author) throw new Error(`seed ${spec.path}: commit ${index} is by '${commit.author}', who has no account`);
    const identity = `${author.name} <${author.email}> ${Math.floor((epoch - commit.daysAgo * DAY) / 1000)} +0000`;
    const parent = tips.get(branch) ?? (commit.from === undefined ? undefined : tips.get(commit.from)) ?? null;
    const merged = commit.merge === undefined ? undefined : tips.get(commit.merge);
    if (commit.merge !== undefined && merged === undefined)
      throw new Error(`seed ${spec.path}: commit ${index} merges '${commit.merge}', which has no commits yet`);
    const changed = changedSinceStart.get(branch) ?? {};
    const files: SeedFiles = {
      ...(commit.merge === undefined ? {} : changedSinceStart.get(commit.merge)),
      ...commit.files,
    };
    changedSinceStart.set(branch, Object.assign(changed, files));
    line(`commit refs/heads/${branch}`);
    line(`mark :${mark}`);
    line(`author ${identity}`);
    line(`committer ${identity}`);
    data(Buffer.from(`${commit.message}\n`));
    if (parent !== null) line(`from :${parent}`);
    if (merged !== undefined) line(`merge :${merged}`);
    for (const [path, content] of Object.entries(files)) {
      if (content === null) {
        line(`D ${path}`);
      } else {
        line(`M 100644 inline ${path}`);
        data(Buffer.isBuffer(content) ? content : Buffer.from(content));
      }
    }
    line('');
    if (commit.tag) {
      line(`tag ${commit.tag}`);
      line(`from :${mark}`);
      line(`tagger ${identity}`);
      data(Buffer.from(`Version ${commit.tag.slice(1)}\n`));
    }
    tips.set(branch, mark);
    parentMarks.push(parent);
  });
  for (const [branch, index] of Object.entries(spec.branchesAt ?? {})) {
    line(`reset refs/heads/${branch}`);
    line(`from :${index + 1}`);
    line('');
  }
  return { stream: Buffer.concat(stream), parentMarks };
}

/** Writes a history into the repository: one `git fast-import`, its commits read back from the marks it exports. */
async function importHistory(repo: GitRepo, { stream, parentMarks }: SeedHistory): Promise<WrittenCommit[]> {
  const marksFile = join(repo.dir, 'seed-marks');
  await repo.run(['fast-import', '--quiet', `--export-marks=${marksFile}`], { input: stream });
  const marks = new Map(
    (await readFile(marksFile, 'utf8'))
      .trim()
      .split('\n')
      .map((entry) => [Number(entry.slice(1, entry.indexOf(' '))), entry.slice(entry.indexOf(' ') + 1)] as const),
  );
  await rm(marksFile);
  return parentMarks.map((parent, index) => ({
    sha: marks.get(index + 1)!,
    parent: parent === null ? null : marks.get(parent)!,
  }));
}

function seedPipelines(
  store: Store,
  project: Project,
  spec: SeedProject,
  commits: WrittenCommit[],
  users: Map<string, User>,
  epoch: number,
): void {
  const now = Date.now();
  for (const p of spec.pipelines) {
    const { sha, parent } = commits[p.commit];
    const tag = spec.commits.some((c) => c.tag === p.ref);
    const committedAt = new Date(epoch - spec.commits[p.commit].daysAgo * DAY);
    const created =
      p.minutesAgo === undefined ? new Date(committedAt.getTime() + 3 * MINUTE) : new Date(now - p.minutesAgo * MINUTE);
    const started = p.status === 'pending' || p.status === 'skipped' ? null : new Date(created.getTime() + 20_000);
    const finishes = p.status === 'success' || p.status === 'failed' || p.status === 'canceled';
    const finished =
      finishes && started
        ? new Date(started.getTime() + (p.duration ?? 60) * 1000)
        : p.status === 'skipped'
          ? created
          : null;
    project.pipelines.push({
      id: store.nextId('pipeline'),
      project_id: project.id,
      status: p.status,
      ref: p.ref,
      sha,
      before_sha: tag || parent === null ? '0'.repeat(40) : parent,
      tag,
      name: p.name ?? null,
      yaml_errors: p.yamlErrors ?? null,
      user_id: users.get(p.by)!.id,
      created_at: created,
      updated_at: finished ?? started ?? created,
      started_at: started,
      finished_at: finished,
      committed_at: committedAt,
      duration: finishes ? (p.duration ?? 60) : null,
      coverage: p.coverage ?? null,
      variables: p.variables ?? [],
    });
  }
}

function seedMilestonesAndReleases(
  store: Store,
  project: Project,
  spec: SeedProject,
  users: Map<string, User>,
  epoch: number,
): void {
  const day = (offset: number) => new Date(epoch + offset * DAY).toISOString().slice(0, 10);
  spec.milestones.forEach((m, index) => {
    const created = new Date(epoch + (m.start - 1) * DAY);
    project.milestones.push({
      id: store.nextId('milestone'),
      iid: index + 1,
      project_id: project.id,
      title: m.title,
      description: m.description,
      state: m.state,
      created_at: created,
      updated_at: m.state === 'closed' ? new Date(epoch + m.due * DAY) : created,
      start_date: day(m.start),
      due_date: day(m.due),
    });
  });
  for (const r of spec.releases) {
    const commit = spec.commits.find((c) => c.tag === r.tag)!;
    const released = new Date(epoch - commit.daysAgo * DAY + 2 * 60 * MINUTE);
    project.releases.push({
      id: store.nextId('release'),
      tag_name: r.tag,
      name: r.name,
      description: r.description,
      created_at: released,
      released_at: released,
      author_id: users.get(r.by)!.id,
      milestone_ids: r.milestones.map((title) => project.milestones.find((m) => m.title === title)!.id),
      links: r.links.map((link) => ({ id: store.nextId('release_link'), ...link })),
    });
  }
}

interface SeededAccounts {
  users: Map<string, User>;
  created: Array<{ project: Project; spec: SeedProject }>;
}

/** Users, groups, memberships and projects (repositories come from `openRepo`, or start empty). */
async function addAccountsAndProjects(
  store: Store,
  epoch: number,
  openRepo?: (index: number) => (dir: string) => Promise<GitRepo>,
): Promise<SeededAccounts> {
  const users = new Map<string, User>();
  for (const account of DEMO_ACCOUNTS) {
    const user = store.addUser({
      username: account.username,
      name: account.name,
      email: account.email,
      is_admin: account.role === 'admin',
      tokens: [{ token: DEMO_TOKENS[account.role], scopes: ['api'] }],
      bio: account.bio,
      organization: account.role === 'outsider' ? 'Walsh Consulting' : 'Acme',
      public_email: account.email,
      created_at: new Date(epoch - 400 * DAY),
      confirmed_at: new Date(epoch - 400 * DAY),
      last_sign_in_at: new Date(epoch - 1 * DAY),
      current_sign_in_at: new Date(epoch - 0.2 * DAY),
      last_activity_on: new Date(epoch).toISOString().slice(0, 10),
    });
    users.set(account.username, user);
  }

  const acme = store.addGroup({
    name: 'Acme',
    path: 'acme',
    description: 'Everything acme ships.',
    visibility: 'public',
    created_at: new Date(epoch - 365 * DAY),
  });
  const platform = store.addGroup({
    name: 'Platform',
    path: 'platform',
    parent: acme,
    description: 'Shared infrastructure and payments. Private to acme.',
    visibility: 'private',
    created_at: new Date(epoch - 300 * DAY),
  });
  for (const account of DEMO_ACCOUNTS) {
    if (account.acmeAccess === null) continue;
    acme.members.set(users.get(account.username)!.id, {
      access_level: account.acmeAccess,
      expires_at: null,
      created_at: new Date(epoch - 360 * DAY),
    });
  }
  store.scimTokens.set(DEMO_TOKENS.scim, acme.id);
  const groups = new Map<string, Group>([
    [acme.full_path, acme],
    [platform.full_path, platform],
  ]);

  const created: SeededAccounts['created'] = [];
  for (const [index, spec] of PROJECTS.entries()) {
    const group = groups.get(spec.namespace);
    const owner = users.get(spec.namespace);
    const firstCommit = new Date(epoch - spec.commits[0].daysAgo * DAY);
    const project = await store.addProject(
      {
        name: spec.name,
        path: spec.path,
        description: spec.description,
        namespace: group ? { kind: 'group', group } : { kind: 'user', user: owner! },
        creator_id: users.get(spec.creator)!.id,
        visibility: spec.visibility,
        archived: spec.archived ?? false,
        issues_enabled: spec.issuesEnabled ?? true,
        merge_requests_enabled: spec.mergeRequestsEnabled ?? true,
        tag_list: spec.topics,
        languages: spec.languages,
        custom_attributes: spec.customAttributes ?? {},
        starred_by: new Set((spec.starredBy ?? []).map((name) => users.get(name)!.id)),
        created_at: new Date(firstCommit.getTime() - 60 * MINUTE),
        last_activity_at: new Date(epoch - Math.min(...spec.commits.map((c) => c.daysAgo)) * DAY),
      },
      openRepo?.(index),
    );
    created.push({ project, spec });
  }
  return { users, created };
}

/** The demo repositories, written once and copied into each sandbox. */
interface SeedTemplate extends SeedTemplateFiles {
  epoch: number;
}

let template: Promise<SeedTemplate> | undefined;

const TEMPLATE_PREFIX = 'forgeops-seed-';
/** Part of the template's key: changed when what is done to the imported histories (below) changes. */
const TEMPLATE_FORMAT = 'fast-import, repack -a -d, no hooks: 1';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Test runners kill their workers without an 'exit' event: remove temporary directories named
 * `<prefix><pid>-…` whose process is gone (seed templates here, sandbox data directories in server.ts).
 */
export async function removeOrphanTempDirs(prefix: string): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => [] as string[]);
  await Promise.all(
    names.map(async (name) => {
      const pid = new RegExp(`^${prefix}(\\d+)-`).exec(name)?.[1];
      if (pid !== undefined && !isAlive(Number(pid))) await rm(join(tmpdir(), name), { recursive: true, force: true });
    }),
  );
}

/**
 * Writes the demo repositories under dir: a git process or two per project (the import, one pack that makes each copy
 * a handful of links); linking the result takes a few milliseconds.
 */
async function writeTemplate(dir: string, epoch: number, histories: SeedHistory[]): Promise<SeedTemplateFiles> {
  const { created } = await addAccountsAndProjects(new Store(dir), epoch);
  const written = await Promise.all(
    created.map(async ({ project }, index) => {
      const commits = await importHistory(project.repo, histories[index]);
      await project.repo.run(['repack', '-a', '-d', '-q']);
      // Sample hooks are never run; leaving them out makes each copy a few dozen files lighter.
      await rm(join(project.repo.dir, 'hooks'), { recursive: true, force: true });
      return commits;
    }),
  );
  return { repoDirs: created.map(({ project }) => project.repo.dir), histories: written };
}

/**
 * The seed is deterministic (fixed contents, dates from the day), so every sandbox gets the same repositories: from
 * this user's cache when a process made them before (the key is the histories' streams themselves), else written
 * here once for the process.
 */
async function buildTemplate(): Promise<SeedTemplate> {
  const epoch = seedEpoch();
  const histories = PROJECTS.map((spec) => historyStream(spec, epoch));
  const cacheRoot = await seedCacheRoot();
  if (cacheRoot) {
    const key = createHash('sha256').update(TEMPLATE_FORMAT);
    for (const { stream } of histories) key.update(stream);
    const cached = await cachedTemplate(cacheRoot, key.digest('hex').slice(0, 32), (dir) =>
      writeTemplate(dir, epoch, histories),
    ).catch(() => undefined);
    if (cached) return { epoch, ...cached };
  }
  await removeOrphanTempDirs(TEMPLATE_PREFIX);
  const dir = await mkdtemp(join(tmpdir(), `${TEMPLATE_PREFIX}${process.pid}-`));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return { epoch, ...(await writeTemplate(dir, epoch, histories)) };
}

/**
 * Copies a repository by hard-linking its files (copying where links are impossible). Safe with git: objects
 * and packs are never modified, and refs, packed-refs and config are replaced through lock files and rename,
 * which breaks the link instead of writing through it.
 */
async function linkTree(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  const entries = await readdir(from, { withFileTypes: true });
  await Promise.all(
    entries.map(async (entry) => {
      const [source, target] = [join(from, entry.name), join(to, entry.name)];
      if (entry.isDirectory()) return linkTree(source, target);
      await link(source, target).catch(() => copyFile(source, target));
    }),
  );
}

function seedTemplate(): Promise<SeedTemplate> {
  template ??= buildTemplate().catch((error: unknown) => {
    template = undefined;
    throw error;
  });
  return template;
}

/**
 * Fills an empty store with the core demo data (repositories copied from the seed template, the rest in memory)
 * and returns what the areas' seeds build on.
 */
export async function seedCore(store: Store): Promise<SeedContext> {
  const { epoch, repoDirs, histories } = await seedTemplate();
  const copyOf = (index: number) => async (dir: string) => {
    await linkTree(repoDirs[index], dir);
    return GitRepo.open(dir);
  };
  const { users, created } = await addAccountsAndProjects(store, epoch, copyOf);
  created.forEach(({ project, spec }, index) => {
    seedMilestonesAndReleases(store, project, spec, users, epoch);
    seedPipelines(store, project, spec, histories[index], users, epoch);
  });
  const branchHead = (project: Project, branch: string) => {
    const index = created.findIndex((c) => c.project === project);
    const last = created[index].spec.commits.findLastIndex((c) => (c.branch ?? 'main') === branch);
    return last === -1 ? null : histories[index][last].sha;
  };
  return { users, epoch, branchHead };
}
