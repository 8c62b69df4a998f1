// What ended a red episode, in words the Slack alert, its thread and the terminal watch share: "!6 (revert of
// 4d7b7da8)" when the green came through a merge request that reverts the culprit, "!7 <title>" through another one,
// else the commit as it is ("f00dfeed Fix the date test (Alice Martin)"). Kept here, below both front ends.
import { shortSha } from '../engine/present.js';

/** The commit the branch turned green on. */
export interface FixingCommit {
  sha: string;
  title?: string;
  author?: string;
}

/** The merge request whose merge turned the branch green; `reverts`: the culprit's sha when it reverts it. */
export interface FixingMergeRequest {
  iid: number;
  title?: string;
  reverts?: string;
}

/** A merge request known to be open for the red (a revert of the culprit): what a green commit is matched against. */
export interface KnownMergeRequest {
  iid: number;
  source_branch: string;
  /** Its head commit when last read: a fast-forward merge makes it the branch's head. */
  sha?: string;
  title?: string;
  /** The commit it reverts. */
  reverts?: string;
}

/** How each front end writes a piece of the words: a sha as code, anyone's text escaped (plain by default). */
export interface FixedByStyle {
  code?: (sha: string) => string;
  text?: (words: string) => string;
}

const MERGE_TITLE = /^Merge branch '([^']+)' into '([^']+)'/;

/** The branch a merge commit's title says it merged into `target` ("Merge branch 'revert-4d7b7da8' into 'main'"). */
export function mergedBranchOf(title: string | undefined, target: string): string | undefined {
  const match = MERGE_TITLE.exec(title ?? '');
  return match && match[2] === target ? match[1] : undefined;
}

/** Whether the green commit is the known merge request's merge (its merge commit, or its head fast-forwarded). */
export function isMergeOf(commit: FixingCommit, mr: KnownMergeRequest): boolean {
  if (mr.sha && commit.sha === mr.sha) return true;
  return (commit.title ?? '').startsWith(`Merge branch '${mr.source_branch}' into `);
}

/** "!6 (revert of 4d7b7da8)", "!7 Fix the date test", or the commit: what fixed the red. */
export function fixedByText(
  commit: FixingCommit,
  mr: FixingMergeRequest | undefined,
  style: FixedByStyle = {},
): string {
  const code = style.code ?? ((sha: string) => sha);
  const text = style.text ?? ((words: string) => words);
  if (mr?.reverts) return `!${mr.iid} (revert of ${code(shortSha(mr.reverts))})`;
  if (mr) return `!${mr.iid}${mr.title ? ` ${text(mr.title)}` : ''}`;
  return `${code(shortSha(commit.sha))}${commit.title ? ` ${text(commit.title)}` : ''}${commit.author ? ` (${text(commit.author)})` : ''}`;
}
