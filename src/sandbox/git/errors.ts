// Typed failures of repository writes, carrying the service's own wording so routes can answer 400 with it.

/** Why a commit, cherry-pick or revert was refused. */
type GitActionErrorKind =
  | 'invalid_path' // empty, absolute, '..' or '.git' segments
  | 'invalid_action' // unknown action, missing content or previous_path, no actions
  | 'file_exists' // create or move onto an existing file
  | 'directory_exists' // a file would replace a directory, or a directory a file
  | 'file_missing' // update, delete, move or chmod of a file that does not exist
  | 'file_changed' // last_commit_id is not the last commit touching the file
  | 'identical' // update whose content and mode equal the current ones
  | 'branch_missing' // target branch does not exist and no start ref was given
  | 'branch_exists' // target branch exists, a different start ref was given, and force is off
  | 'start_missing' // start ref does not resolve to a commit
  | 'invalid_ref' // a branch or tag name git would refuse
  | 'ref_exists' // a tag or branch to create exists already
  | 'branch_moved' // the branch changed while the commit was being built
  | 'empty' // cherry-pick or revert changes nothing
  | 'conflict'; // cherry-pick or revert does not apply cleanly

export class GitActionError extends Error {
  constructor(
    readonly kind: GitActionErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'GitActionError';
  }
}

/** A ref, SHA or path that names nothing in the repository; routes answer 404 with the message. */
export class GitNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GitNotFoundError';
  }
}
