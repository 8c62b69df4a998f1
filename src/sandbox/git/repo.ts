// A bare git repository of the sandbox: ref resolution, commit records, and commits built from file actions.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { COMMIT_LOG_FORMAT, parseCommitLog, type GitCommitInfo } from './commit-format.js';
import { GitActionError, GitNotFoundError } from './errors.js';
import { forgetRefs, mayMoveRefs, untilRefsMove } from './ref-memo.js';
import { GitCommandError, runGit, type RunOptions, type RunResult } from './run.js';

export type { GitCommitInfo } from './commit-format.js';

type FileActionKind = 'create' | 'update' | 'delete' | 'move' | 'chmod';

/** One change of a multi-file commit, with the service's field names. */
export type FileAction = {
  action: FileActionKind;
  file_path: string;
  previous_path?: string;
  content?: Buffer;
  execute_filemode?: boolean;
  last_commit_id?: string;
};

export interface GitIdentity {
  name: string;
  email: string;
  /** Defaults to now. */
  date?: Date;
}

interface CommitOptions {
  branch: string;
  /** Branch, tag or SHA the commit builds on; needed to create a branch, or with force to overwrite one. */
  startRef?: string;
  /** Repository startRef is read from (the service's start_project); defaults to this one. */
  startRepo?: GitRepo;
  force?: boolean;
  message: string;
  author: GitIdentity;
  /** Defaults to the author, with the author's date. */
  committer?: GitIdentity;
  actions: FileAction[];
}

/** An object read by readObjects. */
interface GitObject {
  oid: string;
  type: 'blob' | 'tree' | 'commit' | 'tag';
  content: Buffer;
}

/** A file of a tree: its mode (`100644`, `100755`, `120000`, `160000`) and object id. */
export interface TreeFile {
  mode: string;
  oid: string;
}

const ZERO_SHA = '0'.repeat(40);

/**
 * The shortest abbreviated SHA a caller may name an object by. The spec sets none; git would go down to 4, where
 * 65,536 guesses enumerate every object. 7 is git's default abbreviation and the service's minimum SHA length
 * (start_sha has always needed it here), and our short_id has 8.
 */
const MIN_SHA_PREFIX = 7;
const HEX_SHA = new RegExp(`^[0-9a-f]{${MIN_SHA_PREFIX},40}$`, 'i');

/** A full or abbreviated (MIN_SHA_PREFIX or more hex characters) object name. */
export function isShaLike(text: string): boolean {
  return HEX_SHA.test(text);
}

/**
 * The longest branch or tag name, in bytes: git keeps each ref as a file, and a file name stops at 255 bytes
 * (longer names made git fail with "File name too long").
 */
const MAX_REF_NAME_BYTES = 255;
const ACTION_KINDS: readonly FileActionKind[] = ['create', 'update', 'delete', 'move', 'chmod'];

// Writes to one repository queue behind each other, so two commits never read the same parent and race.
const writeQueues = new Map<string, Promise<unknown>>();

const FULL_SHA = /^[0-9a-f]{40}$/;
/**
 * How many answers a repository remembers of each kind that never changes once read (a commit's record, a commit's
 * files, the last commit to touch a path from a given commit): a commit is immutable, so a page of branches, jobs or
 * pipelines that shows the same commits again asks git once. Past the limit the memo starts over (bounded memory).
 */
const MEMO_LIMIT = 2048;

/**
 * A branch or tag: the object it names and the commit that object is (itself, or what an annotated tag points at);
 * commit null when it is no commit (a tag of a tree), undefined when git must peel it (a tag of a tag).
 */
interface RefEntry {
  target: string;
  commit: string | null | undefined;
}

/** Answers by key, forgotten all at once when full. */
class Memo<V> {
  private readonly answers = new Map<string, V>();
  get(key: string): V | undefined {
    return this.answers.get(key);
  }
  set(key: string, value: V): void {
    if (this.answers.size >= MEMO_LIMIT) this.answers.clear();
    this.answers.set(key, value);
  }
}

function withWriteLock<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = writeQueues.get(key) ?? Promise.resolve();
  const next = previous.then(work, work);
  const settled = next.then(
    () => undefined,
    () => undefined,
  );
  writeQueues.set(key, settled);
  void settled.then(() => {
    if (writeQueues.get(key) === settled) writeQueues.delete(key);
  });
  return next;
}

/** git's ref name rules for a full ref name (git-check-ref-format), checked here to spare a process per call. */
function isValidRefName(name: string): boolean {
  if (name === '' || name === '@' || name.startsWith('-') || name.startsWith('/') || name.endsWith('/')) return false;
  if (name.endsWith('.') || name.includes('..') || name.includes('//') || name.includes('@{')) return false;
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  return name.split('/').every((part) => !part.startsWith('.') && !part.endsWith('.lock'));
}

/**
 * Why `name` cannot name a branch or tag, or null when it can: git's ref name rules, plus what
 * `git check-ref-format --branch` and the service refuse on top of them: a leading '-' (git would read it as an
 * option), 'HEAD' and '@' (revision syntax), a 'refs/' prefix (it would be read as a full ref name), and names
 * longer than MAX_REF_NAME_BYTES. The one rule for every branch and tag created, and for names looked up.
 */
export function refNameProblem(name: string): string | null {
  if (name === '') return 'it is empty';
  if (Buffer.byteLength(name) > MAX_REF_NAME_BYTES) return `it is longer than ${MAX_REF_NAME_BYTES} bytes`;
  if (name.startsWith('-')) return "it starts with '-'";
  if (name === 'HEAD' || name === '@') return `'${name}' is reserved`;
  if (name.startsWith('refs/')) return "it starts with 'refs/'";
  if (!isValidRefName(`refs/heads/${name}`)) return 'it breaks the ref name rules of git check-ref-format';
  return null;
}

/** refNameProblem as a refusal naming the parameter: GitActionError 'invalid_ref', "branch is invalid: …". */
export function checkRefName(name: string, field: string): void {
  const problem = refNameProblem(name);
  if (problem !== null) throw new GitActionError('invalid_ref', `${field} is invalid: ${problem}`);
}

/** git refuses a NUL byte in commit and tag messages; refused here, in the caller's terms, instead. */
function checkMessage(message: string, field: string): void {
  if (message.includes('\0')) throw new GitActionError('invalid_action', `${field} is invalid: it contains a NUL byte`);
}

/**
 * A path inside the repository: relative, no empty, '.', '..' or '.git' segment (so nothing can climb out
 * of the tree or write git's own files), no NUL or newline (they break git's line protocols).
 */
export function checkFilePath(filePath: string, field: string): void {
  const fail = (why: string): never => {
    throw new GitActionError('invalid_path', `${field} '${filePath}' is invalid: ${why}`);
  };
  if (filePath === '') fail('it is empty');
  if (/[\0\n\r]/.test(filePath)) fail('it contains a control character');
  if (filePath.startsWith('/')) fail('it must be relative to the repository root');
  if (filePath.endsWith('/')) fail('it ends with a slash');
  for (const part of filePath.split('/')) {
    if (part === '') fail('it contains an empty segment');
    if (part === '.' || part === '..') fail("it contains '/../' or '/./'");
    if (part.toLowerCase() === '.git') fail("it contains a '.git' segment");
  }
}

/** checkFilePath as a test, for reads where a path that cannot exist simply matches nothing. */
export function isRepositoryPath(filePath: string): boolean {
  try {
    checkFilePath(filePath, 'path');
    return true;
  } catch {
    return false;
  }
}

/** A ref given by a caller: anything git could read as an option or a line break is refused up front. */
function isSafeRevision(ref: string): boolean {
  return ref !== '' && !ref.startsWith('-') && !/[\x00-\x1f\x7f]/.test(ref);
}

/** The object id git gives content as a blob (SHA-1 repositories). */
function blobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/** An identity as git stores it: cleaned name and e-mail, and seconds since the epoch (always UTC). */
interface StoredIdentity {
  name: string;
  email: string;
  seconds: number;
}

function storedIdentity(role: 'author' | 'committer' | 'tagger', who: GitIdentity, fallbackDate: Date): StoredIdentity {
  // git drops these characters itself; an identity made only of them would be refused, so say so clearly.
  const clean = (value: string) => value.replace(/[<>\n\r\0]/g, '').trim();
  const name = clean(who.name);
  if (name === '') throw new GitActionError('invalid_action', `${role} name is empty`);
  const date = who.date ?? fallbackDate;
  if (Number.isNaN(date.getTime())) throw new GitActionError('invalid_action', `${role} date is invalid`);
  return { name, email: clean(who.email), seconds: Math.floor(date.getTime() / 1000) };
}

function identityEnv(prefix: 'AUTHOR' | 'COMMITTER', who: GitIdentity, fallbackDate: Date): Record<string, string> {
  const { name, email, seconds } = storedIdentity(prefix === 'AUTHOR' ? 'author' : 'committer', who, fallbackDate);
  return {
    [`GIT_${prefix}_NAME`]: name,
    [`GIT_${prefix}_EMAIL`]: email,
    [`GIT_${prefix}_DATE`]: `${seconds} +0000`,
  };
}

/** Author and committer of a commit made now: the committer defaults to the author, at the author's date. */
function commitIdentities(
  author: GitIdentity,
  committer?: GitIdentity,
): { author: GitIdentity; committer: GitIdentity } {
  const authorDate = author.date ?? new Date();
  return {
    author: { ...author, date: authorDate },
    committer: committer ? { ...committer, date: committer.date ?? authorDate } : { ...author, date: authorDate },
  };
}

/** Environment naming author and committer of a commit made now. */
function commitIdentityEnv(author: GitIdentity, committer?: GitIdentity): Record<string, string> {
  const who = commitIdentities(author, committer);
  const now = new Date();
  return { ...identityEnv('AUTHOR', who.author, now), ...identityEnv('COMMITTER', who.committer, now) };
}

/** Checks the shape of a list of actions (kinds, paths, required fields) before anything is read or written. */
function validateActions(actions: FileAction[]): void {
  actions.forEach((action, index) => {
    const field = `actions[${index}]`;
    if (!ACTION_KINDS.includes(action.action)) {
      throw new GitActionError(
        'invalid_action',
        `${field}[action] '${String(action.action)}' is not one of ${ACTION_KINDS.join(', ')}`,
      );
    }
    checkFilePath(action.file_path, `${field}[file_path]`);
    if (action.action === 'move') {
      if (action.previous_path === undefined)
        throw new GitActionError('invalid_action', `${field}[previous_path] is missing (required for move)`);
      checkFilePath(action.previous_path, `${field}[previous_path]`);
    }
    if ((action.action === 'create' || action.action === 'update') && action.content === undefined) {
      throw new GitActionError('invalid_action', `${field}[content] is missing (required for ${action.action})`);
    }
    if (action.action === 'chmod' && action.execute_filemode === undefined) {
      throw new GitActionError('invalid_action', `${field}[execute_filemode] is missing (required for chmod)`);
    }
  });
}

/** Told when a branch gets a new head (a commit, a revert or cherry-pick, a merge, a new branch); awaited. */
type BranchMovedListener = (branch: string, sha: string, before: string | null) => Promise<void>;

export class GitRepo {
  /** Who is told of every branch this repository moves (the sandbox's runner starts a pipeline); the seed tells none. */
  onBranchMoved?: BranchMovedListener;

  /** What this repository already read of immutable things, by full commit SHA (each run of git costs a process). */
  private readonly commits = new Memo<GitCommitInfo>();
  private readonly files = new Memo<ReadonlyMap<string, TreeFile>>();
  private readonly lastCommits = new Memo<string | null>();

  /** borrowedObjects: another repository's object directory git may read from (see borrowingFrom). */
  private constructor(
    readonly dir: string,
    private readonly borrowedObjects: string | null = null,
  ) {}

  /** Creates a bare repository at dir (the directory may exist and be empty). */
  static async init(dir: string, options: { defaultBranch: string }): Promise<GitRepo> {
    checkRefName(options.defaultBranch, 'defaultBranch');
    const absolute = path.resolve(dir);
    await mkdir(absolute, { recursive: true });
    await runGit(null, ['init', '--quiet', '--bare', `--initial-branch=${options.defaultBranch}`, absolute]);
    // A directory used before (a project deleted and made again) must not answer with its old refs.
    forgetRefs(absolute);
    return new GitRepo(absolute);
  }

  /** Opens a bare repository made earlier by init. */
  static async open(dir: string): Promise<GitRepo> {
    const absolute = path.resolve(dir);
    await stat(path.join(absolute, 'HEAD')).catch(() => {
      throw new GitNotFoundError(`no git repository at ${absolute}`);
    });
    forgetRefs(absolute);
    return new GitRepo(absolute);
  }

  /** Runs a git command in this repository. */
  async run(args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    const borrowing =
      this.borrowedObjects === null
        ? options
        : { ...options, env: { ...options.env, GIT_ALTERNATE_OBJECT_DIRECTORIES: this.borrowedObjects } };
    if (!mayMoveRefs(args)) return runGit(this.dir, args, borrowing);
    // What the refs said is forgotten before the command (a read meanwhile is not remembered) and after it.
    forgetRefs(this.dir);
    try {
      return await runGit(this.dir, args, borrowing);
    } finally {
      forgetRefs(this.dir);
    }
  }

  /** Every branch and tag by full name, read with one git process until a ref moves. */
  private refs(): Promise<Map<string, RefEntry>> {
    return untilRefsMove(this.dir, 'refs', async () => {
      const { stdout } = await this.run([
        'for-each-ref',
        '--format=%(refname)%00%(objectname)%00%(objecttype)%00%(*objectname)%00%(*objecttype)',
        'refs/heads/',
        'refs/tags/',
      ]);
      const refs = new Map<string, RefEntry>();
      for (const line of stdout.toString('utf8').split('\n')) {
        if (line === '') continue;
        const [name, target, type, peeled, peeledType] = line.split('\0');
        const commit =
          type === 'commit'
            ? target
            : type !== 'tag'
              ? null
              : peeledType === 'tag'
                ? undefined
                : peeledType === 'commit'
                  ? peeled
                  : null;
        refs.set(name, { target, commit });
      }
      return refs;
    });
  }

  /** Runs a git command in this repository and returns its output as text without the final newline. */
  async text(args: readonly string[], options?: RunOptions): Promise<string> {
    return (await this.run(args, options)).stdout.toString('utf8').replace(/\n$/, '');
  }

  /**
   * This repository, able to read the objects of `other` without copying them: a commit on another project's
   * history is built this way, and the history copied only once the commit is accepted.
   */
  private borrowingFrom(other: GitRepo): GitRepo {
    return new GitRepo(this.dir, path.join(other.dir, 'objects'));
  }

  /** Runs work while no other write to this repository runs. */
  withWriteLock<T>(work: () => Promise<T>): Promise<T> {
    return withWriteLock(this.dir, work);
  }

  /** The branch HEAD points at (the project's default branch). */
  defaultBranch(): Promise<string> {
    return untilRefsMove(this.dir, 'HEAD', () => this.text(['symbolic-ref', '--short', 'HEAD']));
  }

  /** Every branch and the SHA it points at, by name (from what the refs say). */
  async branchHeads(): Promise<Map<string, string>> {
    const heads = new Map<string, string>();
    for (const [name, ref] of await this.refs())
      if (name.startsWith('refs/heads/')) heads.set(name.slice('refs/heads/'.length), ref.target);
    return heads;
  }

  /** True until the first commit lands on any branch. */
  async isEmpty(): Promise<boolean> {
    for (const name of (await this.refs()).keys()) if (name.startsWith('refs/heads/')) return false;
    return true;
  }

  /** The SHA a full ref name points at, or null. */
  async refTarget(fullRef: string): Promise<string | null> {
    if (/^refs\/(?:heads|tags)\//.test(fullRef)) return (await this.refs()).get(fullRef)?.target ?? null;
    const { stdout } = await this.run(['rev-parse', '--verify', '--quiet', '--end-of-options', fullRef], {
      okCodes: [1],
    });
    const sha = stdout.toString('utf8').trim();
    return sha === '' ? null : sha;
  }

  /**
   * Branch, tag, full or short SHA (or HEAD) → full commit SHA, or null when it names no commit.
   * Branches win over tags, tags over SHAs, as on the service; other revision syntax is not accepted.
   * A SHA names a commit of this project only when a branch or tag reaches it: objects stored but outside the
   * project's history (a commit a force push replaced, say) are not part of it.
   */
  async resolveCommit(ref: string): Promise<string | null> {
    const [sha] = await this.resolveCommits([ref]);
    return sha;
  }

  /** resolveCommit for several refs with one git process. */
  async resolveCommits(refs: readonly string[]): Promise<(string | null)[]> {
    const queries: string[][] = refs.map((ref) => {
      if (!isSafeRevision(ref)) return [];
      const candidates: string[] = [];
      const fullRef = /^refs\/(?:heads|tags)\/(.*)$/s.exec(ref);
      if (fullRef) {
        if (refNameProblem(fullRef[1]) === null) candidates.push(ref);
      } else if (refNameProblem(ref) === null) {
        candidates.push(`refs/heads/${ref}`, `refs/tags/${ref}`);
      }
      if (HEX_SHA.test(ref) || ref === 'HEAD') candidates.push(ref);
      return candidates;
    });
    // The branches and tags answer from what the refs say; what is left (a SHA, HEAD, a tag of a tag) goes to git.
    const known = await this.refs();
    const found: { sha: string | null; bySha: boolean }[] = [];
    const askGit: { query: number; candidates: string[] }[] = [];
    queries.forEach((candidates, query) => {
      found.push({ sha: null, bySha: false });
      for (const [at, candidate] of candidates.entries()) {
        const ref = candidate.startsWith('refs/') ? known.get(candidate) : undefined;
        if (candidate.startsWith('refs/') && ref?.commit !== undefined) {
          if (ref.commit === null) continue;
          found[query].sha = ref.commit;
          return;
        }
        if (candidate.startsWith('refs/') && ref === undefined) continue;
        askGit.push({ query, candidates: candidates.slice(at) });
        return;
      }
    });
    const lines = askGit.flatMap(({ candidates }) => candidates);
    if (lines.length > 0) {
      const output = await this.text(['cat-file', '--batch-check'], {
        input: lines.map((line) => `${line}^{commit}\n`).join(''),
      });
      const answers = output.split('\n');
      let next = 0;
      for (const { query, candidates } of askGit) {
        for (const candidate of candidates) {
          const match = /^([0-9a-f]{40}) commit \d+$/.exec(answers[next++] ?? '');
          if (match && found[query].sha === null) found[query] = { sha: match[1], bySha: HEX_SHA.test(candidate) };
        }
      }
    }
    return Promise.all(
      found.map(async ({ sha, bySha }) => (sha !== null && bySha && !(await this.isReachableCommit(sha)) ? null : sha)),
    );
  }

  /** Whether a branch or tag of this repository reaches the commit. */
  private isReachableCommit(sha: string): Promise<boolean> {
    return untilRefsMove(this.dir, `reaches ${sha}`, async () => {
      const ref = await this.text([
        'for-each-ref',
        '--count=1',
        `--contains=${sha}`,
        '--format=%(refname)',
        'refs/heads/',
        'refs/tags/',
      ]);
      return ref !== '';
    });
  }

  /**
   * The object a caller names by full or abbreviated SHA (a blob, say), or null: as for resolveCommits, only
   * objects in the history of a branch or tag count.
   */
  async reachableObject(sha: string): Promise<GitObject | null> {
    if (!HEX_SHA.test(sha)) return null;
    const [object] = await this.readObjects([sha.toLowerCase()]);
    if (object === null) return null;
    const { stdout } = await this.run(['rev-list', '--objects', '--branches', '--tags']);
    const listing = stdout.toString('utf8');
    const at = listing.indexOf(object.oid);
    return at !== -1 && (at === 0 || listing[at - 1] === '\n') ? object : null;
  }

  async branchExists(name: string): Promise<boolean> {
    return refNameProblem(name) === null && (await this.refTarget(`refs/heads/${name}`)) !== null;
  }

  async tagExists(name: string): Promise<boolean> {
    return refNameProblem(name) === null && (await this.refTarget(`refs/tags/${name}`)) !== null;
  }

  /** Commit records for full SHAs, in the order given (one git process for those not read before). Unknown SHAs → GitNotFoundError. */
  async getCommits(shas: readonly string[]): Promise<GitCommitInfo[]> {
    if (shas.length === 0) return [];
    for (const sha of shas) {
      if (!FULL_SHA.test(sha)) throw new GitNotFoundError(`404 Commit Not Found: ${sha}`);
    }
    const unread = [...new Set(shas.filter((sha) => this.commits.get(sha) === undefined))];
    if (unread.length > 0) {
      let output: Buffer;
      try {
        ({ stdout: output } = await this.run(['log', '--no-walk=unsorted', '-z', COMMIT_LOG_FORMAT, '--stdin'], {
          input: `${unread.join('\n')}\n`,
        }));
      } catch (error) {
        if (error instanceof GitCommandError) throw new GitNotFoundError('404 Commit Not Found');
        throw error;
      }
      for (const commit of parseCommitLog(output)) this.commits.set(commit.id, commit);
    }
    return shas.map((sha) => {
      const commit = this.commits.get(sha);
      if (!commit) throw new GitNotFoundError(`404 Commit Not Found: ${sha}`);
      return commit;
    });
  }

  async getCommit(sha: string): Promise<GitCommitInfo> {
    const [commit] = await this.getCommits([sha]);
    return commit;
  }

  /** Creates a tag: annotated when a message is given, lightweight otherwise. */
  async createTag(name: string, target: string, message?: string, tagger?: GitIdentity): Promise<void> {
    checkRefName(name, 'tag_name');
    if (message !== undefined) checkMessage(message, 'message');
    await this.withWriteLock(async () => {
      if (await this.tagExists(name)) throw new GitActionError('ref_exists', `Tag ${name} already exists`);
      const sha = await this.resolveCommit(target);
      if (sha === null) throw new GitNotFoundError(`Target ${target} is invalid`);
      if (message === undefined || message === '') {
        await this.run(['update-ref', `refs/tags/${name}`, sha, ZERO_SHA]);
      } else {
        const who = tagger ?? { name: 'Sandbox', email: 'sandbox@localhost' };
        const env = commitIdentityEnv(who, who);
        await this.run(['tag', '--annotate', '--file=-', '--end-of-options', name, sha], { input: message, env });
      }
    });
  }

  /**
   * Reads objects named by SHA or `<commit>:<path>` with one `git cat-file --batch`; null where a name
   * resolves to nothing (or to more than one object).
   */
  async readObjects(names: readonly string[]): Promise<(GitObject | null)[]> {
    if (names.length === 0) return [];
    for (const name of names) {
      if (/[\n\r\0]/.test(name) || name.startsWith('-'))
        throw new GitNotFoundError(`invalid object name: ${JSON.stringify(name)}`);
    }
    const { stdout } = await this.run(['cat-file', '--batch'], { input: names.map((name) => `${name}\n`).join('') });
    const objects: (GitObject | null)[] = [];
    let offset = 0;
    for (let i = 0; i < names.length; i++) {
      const lineEnd = stdout.indexOf(0x0a, offset);
      const header = stdout.subarray(offset, lineEnd).toString('utf8');
      offset = lineEnd + 1;
      const match = /^([0-9a-f]{40}) (blob|tree|commit|tag) (\d+)$/.exec(header);
      if (!match) {
        objects.push(null);
        continue;
      }
      const size = Number(match[3]);
      objects.push({
        oid: match[1],
        type: match[2] as GitObject['type'],
        content: stdout.subarray(offset, offset + size),
      });
      offset += size + 1;
    }
    return objects;
  }

  /** Every file of a commit's tree: path → mode and blob id (a copy: the caller may change it). */
  async listFiles(commitSha: string): Promise<Map<string, TreeFile>> {
    const known = FULL_SHA.test(commitSha) ? this.files.get(commitSha) : undefined;
    if (known) return new Map(known);
    const { stdout } = await this.run(['ls-tree', '-r', '-z', '--full-tree', commitSha]);
    const files = new Map<string, TreeFile>();
    for (const record of stdout.toString('utf8').split('\0')) {
      if (record === '') continue;
      const tab = record.indexOf('\t');
      const [mode, , oid] = record.slice(0, tab).split(' ');
      files.set(record.slice(tab + 1), { mode, oid });
    }
    if (FULL_SHA.test(commitSha)) this.files.set(commitSha, new Map(files));
    return files;
  }

  /** The last commit reachable from commitSha that changed path, or null. */
  async lastCommitFor(commitSha: string, filePath: string): Promise<string | null> {
    const key = `${commitSha}\0${filePath}`;
    const known = FULL_SHA.test(commitSha) ? this.lastCommits.get(key) : undefined;
    if (known !== undefined) return known;
    const sha = await this.text(['log', '-1', '--format=%H', commitSha, '--', filePath]);
    const last = sha === '' ? null : sha;
    if (FULL_SHA.test(commitSha)) this.lastCommits.set(key, last);
    return last;
  }

  /** Writes content as a loose blob object (in-process: no git process per file) and returns its id. */
  async writeBlob(content: Buffer): Promise<string> {
    const oid = blobId(content);
    const target = path.join(this.dir, 'objects', oid.slice(0, 2), oid.slice(2));
    const exists = await stat(target).then(
      () => true,
      () => false,
    );
    if (!exists) {
      await mkdir(path.dirname(target), { recursive: true });
      const temporary = `${target}.tmp-${randomBytes(6).toString('hex')}`;
      await writeFile(temporary, deflateSync(Buffer.concat([Buffer.from(`blob ${content.length}\0`), content])));
      await rename(temporary, target);
    }
    return oid;
  }

  /** Writes a tree object holding exactly these files, through a temporary index. */
  async writeTree(files: Map<string, TreeFile>): Promise<string> {
    const indexFile = path.join(this.dir, `sandbox-index-${randomBytes(8).toString('hex')}`);
    const env = { GIT_INDEX_FILE: indexFile };
    try {
      const entries = [...files].map(([filePath, file]) => `${file.mode} ${file.oid}\t${filePath}\0`).join('');
      await this.run(['update-index', '-z', '--add', '--index-info'], { input: entries, env });
      return await this.text(['write-tree'], { env });
    } finally {
      await unlink(indexFile).catch(() => undefined);
    }
  }

  /** Writes a commit object and returns its SHA (no ref moves). */
  async commitTree(
    tree: string,
    parents: readonly string[],
    message: string,
    author: GitIdentity,
    committer?: GitIdentity,
  ): Promise<string> {
    const parentArgs = parents.flatMap((parent) => ['-p', parent]);
    return this.text(['commit-tree', tree, ...parentArgs], {
      input: message,
      env: commitIdentityEnv(author, committer),
    });
  }

  /** Moves a branch from expected (null: it must not exist) to sha; fails when someone moved it meanwhile. */
  async moveBranch(branch: string, sha: string, expected: string | null): Promise<void> {
    try {
      await this.run(['update-ref', `refs/heads/${branch}`, sha, expected ?? ZERO_SHA]);
    } catch (error) {
      if (error instanceof GitCommandError) {
        throw new GitActionError(
          'branch_moved',
          `The branch ${branch} was changed while the commit was being made; try again`,
        );
      }
      throw error;
    }
    await this.onBranchMoved?.(branch, sha, expected);
  }

  /** Whether the commit object is stored here (reachable or not). */
  private async hasCommit(sha: string): Promise<boolean> {
    const { exitCode } = await this.run(['cat-file', '-e', `${sha}^{commit}`], { okCodes: [1, 128] });
    return exitCode === 0;
  }

  /** Copies a commit of another repository and its history here (for start_project). */
  private async copyHistory(from: GitRepo, sha: string): Promise<void> {
    await this.run(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', from.dir, sha]);
  }

  /**
   * Makes one commit on options.branch from a list of file actions and returns its SHA.
   * Refusals are GitActionErrors in the service's words; nothing is written to the branch then.
   */
  async commit(options: CommitOptions): Promise<string> {
    checkRefName(options.branch, 'branch');
    checkMessage(options.message, 'commit_message');
    validateActions(options.actions);
    return this.withWriteLock(async () => {
      const current = await this.refTarget(`refs/heads/${options.branch}`);
      const parent = await this.commitBase(options, current);
      // Another repository's history is only read while the commit is built and copied once it is accepted:
      // a refused commit must leave none of it here, where this project's readers could ask for it by SHA.
      const foreign =
        parent !== null &&
        options.startRepo !== undefined &&
        options.startRepo.dir !== this.dir &&
        !(await this.hasCommit(parent))
          ? options.startRepo
          : null;
      const work = foreign === null ? this : this.borrowingFrom(foreign);
      const files = parent === null ? new Map<string, TreeFile>() : await work.listFiles(parent);
      for (const action of options.actions) await work.applyAction(files, action, parent);
      const tree = await work.writeTree(files);
      const sha = await work.commitTree(
        tree,
        parent === null ? [] : [parent],
        options.message,
        options.author,
        options.committer,
      );
      if (foreign !== null) await this.copyHistory(foreign, parent as string);
      await this.moveBranch(options.branch, sha, current);
      return sha;
    });
  }

  private async commitBase(options: CommitOptions, current: string | null): Promise<string | null> {
    if (options.startRef !== undefined) {
      const start = await (options.startRepo ?? this).resolveCommit(options.startRef);
      if (start === null)
        throw new GitActionError(
          'start_missing',
          `Invalid start ref: '${options.startRef}' names no branch, tag or commit`,
        );
      const sameBranch =
        (options.startRepo === undefined || options.startRepo.dir === this.dir) && options.startRef === options.branch;
      if (current !== null && !sameBranch && !options.force) {
        throw new GitActionError(
          'branch_exists',
          `A branch called '${options.branch}' already exists. Switch to that branch in order to make changes`,
        );
      }
      return start;
    }
    if (current !== null) return current;
    if (!(await this.isEmpty())) {
      throw new GitActionError(
        'branch_missing',
        `You can only create or edit files when you are on a branch: '${options.branch}' does not exist (give a start branch or SHA to create it)`,
      );
    }
    return null;
  }

  private async applyAction(files: Map<string, TreeFile>, action: FileAction, parent: string | null): Promise<void> {
    const source = actionSource(action);
    if (
      action.last_commit_id !== undefined &&
      files.has(source) &&
      LAST_COMMIT_CHECKED.has(action.action) &&
      parent !== null
    ) {
      const last = await this.lastCommitFor(parent, source);
      const given = action.last_commit_id.toLowerCase();
      if (last === null || !(given === last || (given.length >= MIN_SHA_PREFIX && last.startsWith(given)))) {
        throw new GitActionError('file_changed', `The file has changed since you started editing it: ${source}`);
      }
    }
    const content = action.content === undefined ? undefined : await this.writeBlob(action.content);
    applyToFiles(files, action, content);
  }
}

/** last_commit_id is considered for these actions only (the service's rule). */
const LAST_COMMIT_CHECKED = new Set<FileActionKind>(['update', 'move', 'delete']);

/** The path an action reads from: previous_path for a move, file_path otherwise. */
function actionSource(action: FileAction): string {
  return action.action === 'move' ? (action.previous_path as string) : action.file_path;
}

/**
 * Applies one validated action to a tree's files; contentOid is the blob id of action.content, if any.
 * Kept apart from commit() so the refusals read as one list of rules.
 */
export function applyToFiles(files: Map<string, TreeFile>, action: FileAction, contentOid: string | undefined): void {
  const target = action.file_path;
  const source = actionSource(action);
  const existing = files.get(source);
  if (action.action !== 'create' && existing === undefined) {
    throw new GitActionError('file_missing', `A file with this name doesn't exist: ${source}`);
  }
  if (action.action === 'create' || (action.action === 'move' && source !== target)) checkFreeForFile(files, target);
  switch (action.action) {
    case 'create':
      files.set(target, { mode: '100644', oid: contentOid as string });
      countDirectories(files, target, 1);
      return;
    case 'update': {
      const current = existing as TreeFile;
      if (current.oid === contentOid)
        throw new GitActionError('identical', `The new content is identical to the current content of ${target}`);
      files.set(target, { mode: current.mode, oid: contentOid as string });
      return;
    }
    case 'delete':
      files.delete(target);
      countDirectories(files, target, -1);
      return;
    case 'move': {
      const current = existing as TreeFile;
      files.delete(source);
      countDirectories(files, source, -1);
      files.set(target, { mode: current.mode, oid: contentOid ?? current.oid });
      countDirectories(files, target, 1);
      return;
    }
    case 'chmod': {
      const current = existing as TreeFile;
      // Only regular files have an executable bit; links and submodules keep their mode.
      const regular = current.mode === '100644' || current.mode === '100755';
      files.set(target, {
        mode: regular ? (action.execute_filemode ? '100755' : '100644') : current.mode,
        oid: current.oid,
      });
    }
  }
}

// How many files sit below each directory of a file map, built on first need and kept up to date by
// applyToFiles (the only writer once actions are applied). Scanning every path for each created file made a
// commit of n new files cost n² (40,000 files: 13 s with the event loop blocked); this makes each check O(depth).
const directoryCounts = new WeakMap<Map<string, TreeFile>, Map<string, number>>();

function directoriesOf(files: Map<string, TreeFile>): Map<string, number> {
  let directories = directoryCounts.get(files);
  if (directories === undefined) {
    directories = new Map();
    for (const filePath of files.keys()) addDirectories(directories, filePath, 1);
    directoryCounts.set(files, directories);
  }
  return directories;
}

function addDirectories(directories: Map<string, number>, filePath: string, delta: 1 | -1): void {
  for (let slash = filePath.indexOf('/'); slash !== -1; slash = filePath.indexOf('/', slash + 1)) {
    const directory = filePath.slice(0, slash);
    const count = (directories.get(directory) ?? 0) + delta;
    if (count > 0) directories.set(directory, count);
    else directories.delete(directory);
  }
}

/** Records that filePath was added to (1) or removed from (-1) files, if its directories are being counted. */
function countDirectories(files: Map<string, TreeFile>, filePath: string, delta: 1 | -1): void {
  const directories = directoryCounts.get(files);
  if (directories !== undefined) addDirectories(directories, filePath, delta);
}

/** A new file may not sit on an existing file, a directory, or under a path that is a file. */
function checkFreeForFile(files: Map<string, TreeFile>, target: string): void {
  if (files.has(target)) throw new GitActionError('file_exists', `A file with this name already exists: ${target}`);
  if (directoriesOf(files).has(target)) {
    throw new GitActionError('directory_exists', `A directory with this name already exists: ${target}`);
  }
  const parts = target.split('/');
  for (let i = 1; i < parts.length; i++) {
    const ancestor = parts.slice(0, i).join('/');
    if (files.has(ancestor))
      throw new GitActionError('file_exists', `A file with this name already exists: ${ancestor}`);
  }
}
