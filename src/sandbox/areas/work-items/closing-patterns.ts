// Closing issues from a merge (beyond the spec: the service's automatic issue closing, as its docs describe it): when a
// merge request is merged into its project's default branch, the issues that a closing statement names in its title,
// its description or the messages of its commits ("Closes #5", "fixes group/project#6 and #7", "Resolves
// https://…/-/issues/8") are closed by the person who merged it, where they may edit the issue, with the system note
// "closed via merge request !3". The statement is the vendor's default issue_closing_pattern, read over the raw text
// as the vendor reads it: a keyword (Close, Closes, Closed, Closing, Fix, Fixes, Fixed, Fixing, Resolve, Resolves,
// Resolved, Resolving, Implement, Implements, Implemented, Implementing, first letter in either case), an optional
// colon, spaces, then issues separated by commas or "and". A reference broken by anything else (`#5` in inline code,
// an entity, a backslash) is no statement, so nothing of it closes.
import type { SandboxContext } from '../../core/context.js';
import { ACCESS, type Project, type User } from '../../core/store.js';
import { addNote } from './changes.js';
import { canSeeIssue } from './shared.js';
import { workItemsOf, type Issue, type MergeRequest } from './state.js';

const KEYWORD = String.raw`\b(?:[Cc]los(?:e[sd]?|ing)|\b[Ff]ix(?:e[sd]|ing)?|\b[Rr]esolv(?:e[sd]?|ing)|\b[Ii]mplement(?:s|ed|ing)?)`;
/** A local issue (#5), another project's (project#5, group/project#5, /group/project#5) or a web address. */
const ISSUE = String.raw`(?:https?://\S+|(?:(?<![\w.])/?(?:[\w.-]+/)*[\w.-]+)?#\d+)`;
/** External trackers' keys (JIRA-12) continue a statement as the vendor's pattern has them; they close nothing here. */
const STATEMENT = new RegExp(
  String.raw`${KEYWORD}:? +(?:(?:issues? +)?${ISSUE}(?: *,? +and +| *,? *)?|[A-Z][A-Z0-9_]+-\d+)+`,
  'g',
);
const REFERENCE = /https?:\/\/[^\s,]+|(?:(?<![\w.])(\/?(?:[\w.-]+\/)*[\w.-]+))?#(\d+)/g;

/** An issue a statement names: its project's full path (as written, or the merge request's own) and its iid. */
interface Named {
  path: string;
  iid: number;
}

/** The issues the closing statements of `text` name, relative to `project` (a bare project name is a sibling). */
export function issuesToClose(text: string, project: Project, baseUrl: string): Named[] {
  const named: Named[] = [];
  const namespace = project.full_path.split('/').slice(0, -1).join('/');
  for (const statement of text.matchAll(STATEMENT)) {
    for (const reference of statement[0].matchAll(REFERENCE)) {
      if (reference[2] === undefined) {
        // A link counts when it points at an issue (or a work item) of this instance.
        const link = reference[0].replace(/[.!?)]+$/, '');
        if (!link.startsWith(`${baseUrl}/`)) continue;
        const found = /^(.+?)\/(?:-\/)?(?:issues|work_items)\/(\d+)$/.exec(link.slice(baseUrl.length + 1));
        if (found) named.push({ path: found[1], iid: Number(found[2]) });
        continue;
      }
      const written = reference[1];
      const path =
        written === undefined
          ? project.full_path
          : written.startsWith('/')
            ? written.slice(1)
            : written.includes('/') || namespace === ''
              ? written
              : `${namespace}/${written}`;
      named.push({ path, iid: Number(reference[2]) });
    }
  }
  return named;
}

/** Whether `user` may close the issue as the issue edit route lets them: reporters and up, or its author or assignee. */
function mayClose(ctx: SandboxContext, user: User, project: Project, issue: Issue): boolean {
  if (project.archived || !canSeeIssue(ctx, user, project, issue)) return false;
  const access = ctx.projectAccess(user, project);
  const involved = issue.author_id === user.id || issue.assignee_ids.includes(user.id);
  return access >= ACCESS.reporter || (involved && access >= ACCESS.guest);
}

/**
 * Closes the issues a merge request just merged into `p`'s default branch names in its closing statements: its title,
 * description and the messages of its commits (`source` not in `target`). Answers the closed issues.
 */
export async function closeIssuesOnMerge(
  ctx: SandboxContext,
  p: Project,
  mr: MergeRequest,
  user: User,
  commits: { target: string; source: string },
  at: Date,
): Promise<Issue[]> {
  if (mr.target_branch !== p.default_branch) return [];
  const log = await p.repo.run(['log', '-z', '--format=%B', `${commits.target}..${commits.source}`]);
  const messages = log.stdout.toString('utf8').split('\0');
  const text = [mr.title, mr.description ?? '', ...messages].join('\n');
  const closed: Issue[] = [];
  for (const { path, iid } of issuesToClose(text, p, ctx.store.baseUrl)) {
    const project = ctx.store.findProject(path);
    if (!project?.issues_enabled) continue;
    const issue = workItemsOf(ctx.store).issues.find((i) => i.project_id === project.id && i.iid === iid);
    if (issue?.state !== 'opened' || !mayClose(ctx, user, project, issue)) continue;
    Object.assign(issue, { state: 'closed', closed_at: at, closed_by_id: user.id, updated_at: at });
    const reference = project.id === p.id ? `!${mr.iid}` : `${p.full_path}!${mr.iid}`;
    addNote(ctx.store, project, issue, 'Issue', user, `closed via merge request ${reference}`, true, at);
    closed.push(issue);
  }
  return closed;
}
