// What a repository's refs say (where branches and tags point, HEAD, which commits they reach), remembered until a git
// command that may move a ref runs there: the sandbox's answers read refs many times between two writes, and each
// read was a git process of its own.

/**
 * The git commands the sandbox runs that never move a ref or HEAD (they read, or write only objects, an index or a
 * worktree of their own). Any other command forgets what was remembered, before it runs and after: a new command
 * is a write until it is listed here.
 */
const REFS_UNMOVED = new Set([
  'archive',
  'cat-file',
  'commit-tree',
  'diff',
  'diff-tree',
  'for-each-ref',
  'hash-object',
  'log',
  'ls-tree',
  'merge-base',
  'merge-tree',
  'mktree',
  'read-tree',
  'repack',
  'rev-list',
  'rev-parse',
  'update-index',
  'worktree',
  'write-tree',
]);

/** Whether `git <args>` (subcommand first) may move a ref: `symbolic-ref NAME` reads, `symbolic-ref NAME REF` writes. */
export function mayMoveRefs(args: readonly string[]): boolean {
  const [command] = args;
  if (command === 'symbolic-ref') return args.filter((arg) => !arg.startsWith('-')).length > 2;
  return !REFS_UNMOVED.has(command);
}

/** Answers per key, at most this many per repository (a page's reachability checks, say) before starting over. */
const MAX_ANSWERS = 1024;

/** The remembered answers of each repository directory (two GitRepo objects may stand for one directory). */
const answersByDirectory = new Map<string, Map<string, Promise<unknown>>>();
/** Directories remembered at most; past it the oldest is forgotten (a sandbox creates and deletes repositories). */
const MAX_DIRECTORIES = 512;

/** Forgets what the refs of the repository at dir said: they may have moved. */
export function forgetRefs(dir: string): void {
  answersByDirectory.delete(dir);
}

/**
 * The answer `read` gives, read once until the refs of dir move. A read that fails is not remembered; a read under
 * way when a write starts is not remembered either (the write forgets the map it would land in).
 */
export function untilRefsMove<T>(dir: string, key: string, read: () => Promise<T>): Promise<T> {
  let answers = answersByDirectory.get(dir);
  if (!answers) {
    if (answersByDirectory.size >= MAX_DIRECTORIES) answersByDirectory.delete(answersByDirectory.keys().next().value!);
    answers = new Map();
    answersByDirectory.set(dir, answers);
  }
  const known = answers.get(key) as Promise<T> | undefined;
  if (known) return known;
  if (answers.size >= MAX_ANSWERS) answers.clear();
  const answer = read();
  answers.set(key, answer);
  const remembered = answers;
  answer.catch(() => {
    if (remembered.get(key) === answer) remembered.delete(key);
  });
  return answer;
}
