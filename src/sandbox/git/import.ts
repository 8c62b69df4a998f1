// Bulk history import for seeding: many commits (and tags) written by one `git fast-import` process, with the
// same refusals as GitRepo.commit() checked beforehand, so that a bad history writes nothing.
import { randomBytes } from 'node:crypto';
import { readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { GitActionError } from './errors.js';
import {
  applyToFiles,
  blobId,
  commitIdentities,
  identityLine,
  isValidRefName,
  validateActions,
  type FileAction,
  type GitIdentity,
  type GitRepo,
  type TreeFile,
} from './repo.js';

export interface ImportCommit {
  branch: string;
  /** Where a new branch starts: a branch (of this import or the repository), tag or SHA. */
  startRef?: string;
  message: string;
  author: GitIdentity;
  /** Defaults to the author, at the author's date. */
  committer?: GitIdentity;
  /** As for GitRepo.commit(), except last_commit_id, which has no meaning in a history written at once. */
  actions: FileAction[];
  /** A tag on this commit; annotated (tagger: the committer) when it has a message. */
  tag?: { name: string; message?: string };
}

interface BranchState {
  /** The tip as fast-import names it: a SHA, or `:mark` of a commit of this import. */
  tip: string | null;
  files: Map<string, TreeFile>;
}

/** fast-import's C-style quoted path (paths never hold NUL or line breaks: checkFilePath refuses them). */
function quotePath(filePath: string): string {
  return `"${filePath.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** `data <bytes>` followed by the bytes, as fast-import reads them. */
function dataBlock(content: Buffer | string): Buffer[] {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return [Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from('\n')];
}

/**
 * Writes commits in order and returns their SHAs. Branches are created and moved as by commit() (a new
 * branch needs startRef unless the repository is empty; an existing one cannot be restarted), and refusals are
 * the same GitActionErrors; nothing is written unless every commit is valid.
 */
export async function importHistory(repo: GitRepo, commits: readonly ImportCommit[]): Promise<string[]> {
  return repo.withWriteLock(async () => {
    const branches = new Map<string, BranchState>();
    const tags = new Set<string>();
    const blobs = new Set<string>();
    const stream: Buffer[] = [];
    const emit = (text: string) => stream.push(Buffer.from(text, 'utf8'));
    const repoWasEmpty = await repo.isEmpty();

    const stateAt = async (ref: string): Promise<BranchState | null> => {
      const imported = branches.get(ref);
      if (imported) return { tip: imported.tip, files: new Map(imported.files) };
      const sha = await repo.resolveCommit(ref);
      return sha === null ? null : { tip: sha, files: await repo.listFiles(sha) };
    };

    for (const [index, commit] of commits.entries()) {
      const { branch } = commit;
      if (!isValidRefName(`refs/heads/${branch}`)) throw new GitActionError('invalid_ref', `branch '${branch}' is not a valid branch name`);
      validateActions(commit.actions);
      if (commit.actions.some((action) => action.last_commit_id !== undefined)) {
        throw new GitActionError('invalid_action', `commit ${index}: last_commit_id is not supported when importing a history`);
      }
      let state = branches.get(branch) ?? (await stateAt(`refs/heads/${branch}`));
      if (commit.startRef !== undefined && commit.startRef !== branch) {
        if (state !== null) {
          throw new GitActionError('branch_exists', `A branch called '${branch}' already exists. Switch to that branch in order to make changes`);
        }
        state = await stateAt(commit.startRef);
        if (state === null) throw new GitActionError('start_missing', `Invalid start ref: '${commit.startRef}' names no branch, tag or commit`);
      }
      if (state === null) {
        if (!repoWasEmpty || branches.size > 0) {
          throw new GitActionError('branch_missing', `You can only create or edit files when you are on a branch: '${branch}' does not exist (give a start branch or SHA to create it)`);
        }
        state = { tip: null, files: new Map() };
      }

      const before = new Map(state.files);
      for (const action of commit.actions) {
        let oid: string | undefined;
        if (action.content !== undefined) {
          oid = blobId(action.content);
          if (!blobs.has(oid)) {
            blobs.add(oid);
            emit('blob\n');
            stream.push(...dataBlock(action.content));
          }
        }
        applyToFiles(state.files, action, oid);
      }

      const who = commitIdentities(commit.author, commit.committer);
      const now = new Date();
      const mark = `:${index + 1}`;
      emit(`commit refs/heads/${branch}\nmark ${mark}\n`);
      emit(`author ${identityLine('author', who.author, now)}\ncommitter ${identityLine('committer', who.committer, now)}\n`);
      stream.push(...dataBlock(commit.message));
      if (state.tip !== null) emit(`from ${state.tip}\n`);
      for (const filePath of before.keys()) {
        if (!state.files.has(filePath)) emit(`D ${quotePath(filePath)}\n`);
      }
      for (const [filePath, file] of state.files) {
        const old = before.get(filePath);
        if (old === undefined || old.mode !== file.mode || old.oid !== file.oid) emit(`M ${file.mode} ${file.oid} ${quotePath(filePath)}\n`);
      }
      emit('\n');
      state.tip = mark;
      branches.set(branch, state);

      if (commit.tag !== undefined) {
        const { name, message } = commit.tag;
        if (!isValidRefName(`refs/tags/${name}`)) throw new GitActionError('invalid_ref', `tag_name '${name}' is not a valid tag name`);
        if (tags.has(name) || (await repo.tagExists(name))) throw new GitActionError('ref_exists', `Tag ${name} already exists`);
        tags.add(name);
        if (message === undefined || message === '') {
          emit(`reset refs/tags/${name}\nfrom ${mark}\n\n`);
        } else {
          emit(`tag ${name}\nfrom ${mark}\ntagger ${identityLine('tagger', who.committer, now)}\n`);
          stream.push(...dataBlock(message));
        }
      }
    }
    emit('done\n');

    const marksFile = path.join(repo.dir, `sandbox-marks-${randomBytes(8).toString('hex')}`);
    try {
      await repo.run(['fast-import', '--quiet', '--done', `--export-marks=${marksFile}`], { input: Buffer.concat(stream) });
      const marks = new Map(
        (await readFile(marksFile, 'utf8'))
          .split('\n')
          .filter(Boolean)
          .map((line) => line.split(' ') as [string, string]),
      );
      return commits.map((_, index) => marks.get(`:${index + 1}`) as string);
    } finally {
      await unlink(marksFile).catch(() => undefined);
    }
  });
}
