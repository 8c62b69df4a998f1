// Small builders the contract suites share: the seeded commits of a branch, looked up as a front end would.
import type { ContractSuite } from './harness.js';

/** bob's seeded commit on acme/web's main that turns its pipelines red; reverting it makes main pass again. */
export const TIME_ZONE_CULPRIT = "Show order dates in the store's time zone";

export interface CommitSummary {
  id: string;
  title: string;
}

/** The commits of `project`'s `ref` (default main), newest first, every page. */
export function commitsOf(suite: ContractSuite, project: string, ref = 'main'): Promise<CommitSummary[]> {
  return suite.data<CommitSummary[]>('list_commits', { id: project, ref_name: ref, all_pages: true });
}

/** The commit titled `title` among `commits`; throws (failing the test) when none is, naming it. */
export function commitTitled(commits: CommitSummary[], title: string): CommitSummary {
  const found = commits.find((commit) => commit.title === title);
  if (!found) throw new Error(`no commit titled ${JSON.stringify(title)}`);
  return found;
}
