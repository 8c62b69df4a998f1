// The work items area of the sandbox: labels, issues, merge requests, epics and label events, with their demo data.
import type { SandboxArea } from '../../core/area.js';
import { registerAll } from '../../core/router.js';
import { startAutoMerge } from './auto-merge.js';
import { registerEpicChanges } from './epic-change-routes.js';
import { registerEpicTodos } from './epic-todo-routes.js';
import { registerEpicReads } from './epics-routes.js';
import { register as registerIssueChanges } from './issue-changes-routes.js';
import { register as registerIssues } from './issues-routes.js';
import { register as registerLabelEvents } from './label-events-routes.js';
import { register as registerMergeRequestChanges } from './merge-request-changes-routes.js';
import { register as registerMergeRequests } from './merge-requests-routes.js';
import { seedEpics } from './seed-epics.js';
import { seedWorkItems } from './seed.js';
import { workItemsOf } from './state.js';

/**
 * Public to the group-import-export area (a group's labels travel in its export archive) and the branches area
 * (deleting merged branches spares those of open merge requests).
 */
export { addLabel, openMergeRequestBranches, workItemsOf } from './state.js';

const registerRoutes = registerAll(
  registerIssues,
  registerMergeRequests,
  registerIssueChanges,
  registerMergeRequestChanges,
  registerLabelEvents,
  registerEpicReads,
  registerEpicChanges,
  registerEpicTodos,
);

export const area: SandboxArea = {
  name: 'work-items',
  routes: (router, ctx) => {
    registerRoutes(router, ctx);
    startAutoMerge(ctx);
    // A project's open_issues_count counts its open issues, as the vendor's does.
    ctx.store.openIssuesCount = (project) =>
      workItemsOf(ctx.store).issues.filter((issue) => issue.project_id === project.id && issue.state === 'opened')
        .length;
  },
  seed: (store, { users, epoch, branchHead }) => {
    seedWorkItems(store, users, epoch, branchHead);
    seedEpics(store, users, epoch);
  },
};
