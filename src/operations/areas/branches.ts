// Branches area (beyond the spec; the service's Branches and Protected branches APIs, v4): find, read, create and
// delete branches, delete merged branches, protect and unprotect a branch.
import { z } from 'zod';
import { accessLevel } from './shared/access-levels.js';
import { defineOperation, fields, defineArea } from '../engine/define.js';
import type { Presentation } from '../engine/define.js';
import { protectionFacts, protectReason, unprotectNote } from './shared/branch-protections.js';
import { asRecord, presentList, shortSha, show } from '../engine/present.js';

const branchName = () => z.string().min(1);
/** Who may push or merge: 30 (`developer`) means developers and maintainers. */
const pushOrMergeLevel = () => accessLevel([0, 30, 40, 60]).optional();

function presentBranch(data: unknown): Presentation {
  const branch = asRecord(data);
  const commit = asRecord(branch.commit);
  const flags = [
    branch.default === true && 'default',
    branch.protected === true && 'protected',
    branch.merged === true && 'merged',
  ].filter(Boolean);
  return {
    title: `Branch ${show(branch.name)}${flags.length > 0 ? ` (${flags.join(', ')})` : ''}`,
    fields: [
      ['head', `${shortSha(commit.id)} ${show(commit.title)}`],
      ['author', show(commit.author_name)],
      ['at', show(commit.committed_date)],
    ],
  };
}

const UNPROTECT_UNDO =
  'The rules it lifts (who may push and merge) are kept nowhere, and until protect_branch sets them again anyone with push rights may force-push or delete the branch.';

const branchesOperations = [
  defineOperation({
    name: 'list_branches',
    chat: 'branch list',
    area: 'branches',
    outsideSpec: 'Branches API: List repository branches',
    title: 'List branches',
    description: "List a project's branches with their head commit; search by part of the name.",
    route: 'GET /projects/:id/repository/branches',
    input: z.object({
      id: fields.projectId(),
      search: z.string().min(1).optional().describe('Part of the name; ^start or end$ anchor it.'),
    }),
    effect: 'read',
    pagination: 'offset',
    present: presentList('branch', (b) => [
      show(b.name),
      `${shortSha(asRecord(b.commit).id)}${b.default === true ? ' · default' : ''}${b.protected === true ? ' · protected' : ''}`,
    ]),
    examples: [{ input: { id: 'acme/web' } }],
  }),
  defineOperation({
    name: 'get_branch',
    chat: 'branch get',
    area: 'branches',
    outsideSpec: 'Branches API: Get single repository branch',
    title: 'Get branch',
    description: 'Read one branch: its head commit, and whether it is the default, protected or merged.',
    route: 'GET /projects/:id/repository/branches/:branch',
    input: z.object({ id: fields.projectId(), branch: branchName() }),
    effect: 'read',
    present: presentBranch,
    examples: [{ input: { id: 'acme/web', branch: 'main' } }],
  }),
  defineOperation({
    name: 'create_branch',
    chat: 'branch create',
    area: 'branches',
    outsideSpec: 'Branches API: Create repository branch',
    title: 'Create branch',
    description: 'Create a branch at a ref (branch, tag or commit SHA).',
    route: 'POST /projects/:id/repository/branches',
    input: z.object({
      id: fields.projectId(),
      branch: branchName(),
      ref: fields.ref('Where it starts: branch, tag or commit SHA.'),
    }),
    queryKeys: ['branch', 'ref'],
    effect: 'write',
    undo: 'Adds a branch and moves no other (an existing name is refused); delete_branch removes it again.',
    present: presentBranch,
    decisions: { runs: [{ id: 'acme/web', branch: 'fix/x', ref: 'main' }], asks: [] },
  }),
  defineOperation({
    name: 'delete_branch',
    chat: 'branch delete',
    area: 'branches',
    outsideSpec: 'Branches API: Delete repository branch',
    title: 'Delete branch',
    description: 'Delete a branch; its commits stay reachable only from other refs.',
    route: 'DELETE /projects/:id/repository/branches/:branch',
    input: z.object({ id: fields.projectId(), branch: branchName() }),
    effect: 'destructive',
    undo: 'Commits no other branch or tag holds become unreachable; create_branch at the old head SHA brings it back while that SHA is known.',
    decisions: { runs: [], asks: [{ id: 'acme/web', branch: 'fix/x' }] },
  }),
  defineOperation({
    name: 'delete_merged_branches',
    chat: 'branch delete-merged',
    area: 'branches',
    outsideSpec: 'Branches API: Delete merged branches',
    title: 'Delete merged branches',
    description: 'Delete every branch merged into the default branch, protected ones excepted.',
    route: 'DELETE /projects/:id/repository/merged_branches',
    input: z.object({ id: fields.projectId() }),
    effect: 'destructive',
    undo: 'Every merged branch goes at once and no list of them is kept; their commits stay in the default branch.',
    decisions: { runs: [], asks: [{ id: 'acme/web' }] },
  }),
  defineOperation({
    name: 'list_protected_branches',
    chat: 'branch protected',
    area: 'branches',
    outsideSpec: 'Protected branches API: List protected branches',
    title: 'List protected branches',
    description: "List a project's protected branches (names or wildcards) with who may push and merge.",
    route: 'GET /projects/:id/protected_branches',
    input: z.object({ id: fields.projectId(), search: z.string().min(1).optional() }),
    effect: 'read',
    pagination: 'offset',
    present: presentList('protected branch', (p) => [
      show(p.name),
      `force push ${p.allow_force_push === true ? 'allowed' : 'refused'}`,
    ]),
    examples: [{ input: { id: 'acme/web' } }],
  }),
  defineOperation({
    name: 'protect_branch',
    chat: 'branch protect',
    area: 'branches',
    outsideSpec: 'Protected branches API: Protect repository branches',
    title: 'Protect branch',
    description: 'Protect a branch (or wildcard): who may push and merge, and whether force push is allowed.',
    route: 'POST /projects/:id/protected_branches',
    input: z.object({
      id: fields.projectId(),
      name: z.string().min(1).describe('Branch name or wildcard such as release/*.'),
      push_access_level: pushOrMergeLevel(),
      merge_access_level: pushOrMergeLevel(),
      allow_force_push: z.boolean().optional(),
    }),
    queryKeys: ['name', 'push_access_level', 'merge_access_level', 'allow_force_push'],
    effect: 'write',
    undo:
      'Adds a protection (an already protected name is refused); unprotect_branch lifts it. The service applies the most ' +
      'permissive rule matching a branch, so a wildcard, or a name another rule covers, may open a branch: those ask a human.',
    facts: protectionFacts(),
    needsApproval: protectReason,
    // The most permissive matching rule wins: a wildcard asks, and an exact name asks unless the rules read show none covers it.
    decisions: {
      runs: [],
      asks: [
        { id: 'acme/web', name: 'release/*', push_access_level: 40 },
        { id: 'acme/web', name: 'hotfix' },
      ],
    },
  }),
  defineOperation({
    name: 'unprotect_branch',
    chat: 'branch unprotect',
    area: 'branches',
    outsideSpec: 'Protected branches API: Unprotect repository branches',
    title: 'Unprotect branch',
    description: "Lift a branch's protection: anyone with push rights may then push, force or delete it.",
    route: 'DELETE /projects/:id/protected_branches/:name',
    input: z.object({ id: fields.projectId(), name: z.string().min(1).describe('Branch name or wildcard.') }),
    effect: 'destructive',
    undo: UNPROTECT_UNDO,
    facts: protectionFacts(),
    // What is left once the rule goes: the other rules matching the branch, or none.
    needsApproval: (input, rules) => {
      const note = unprotectNote(input, rules);
      return note === undefined ? undefined : `${UNPROTECT_UNDO} ${note}`;
    },
    decisions: { runs: [], asks: [{ id: 'acme/web', name: 'main' }] },
  }),
];

export const area = defineArea({
  name: 'branches',
  operations: branchesOperations,
  // Beyond the spec: what python-gitlab and gitbeaker (test/interop/) do not drive yet; each drives all of it today.
  interop: { notYetDriven: { pythonGitlab: [], gitbeaker: [] } },
});
