// Every change in the registry carries a recorded safety decision: when it asks a human, proven here for each one.
import { describe, expect, it } from 'vitest';
import { operations } from '../../src/operations/index.js';
import { validateInput } from '../../src/operations/engine/validate.js';
import { decide } from '../../src/policy/policy.js';

const P = 'acme/web';
const commit = (actions: unknown[], extra: Record<string, unknown> = {}) => ({
  id: P,
  branch: 'main',
  commit_message: 'm',
  actions,
  ...extra,
});
const create = { action: 'create', file_path: 'a.txt', content: 'a' };

/**
 * The decision for each write and destructive operation: inputs that run at once, and inputs a human must
 * approve. A new change fails here until its decision is written down.
 */
const DECISIONS: Record<string, { runs: Array<Record<string, unknown>>; asks: Array<Record<string, unknown>> }> = {
  create_file: { runs: [{ id: P, file_path: 'a.txt', branch: 'main', commit_message: 'm', content: 'x' }], asks: [] },
  // The old content stays in the history.
  update_file: { runs: [{ id: P, file_path: 'a.txt', branch: 'main', commit_message: 'm', content: 'x' }], asks: [] },
  delete_file: { runs: [], asks: [{ id: P, file_path: 'README.md', branch: 'main', commit_message: 'm' }] },
  create_commit: {
    runs: [
      commit([
        create,
        { action: 'update', file_path: 'b.txt', content: 'b' },
        { action: 'chmod', file_path: 'c.sh', execute_filemode: true },
      ]),
      // Starting a new branch from this very project copies nothing anywhere.
      commit([create], { start_branch: 'main', start_project: P }),
    ],
    asks: [
      commit([{ action: 'delete', file_path: 'README.md' }]),
      commit([{ action: 'move', file_path: 'b.md', previous_path: 'README.md' }]),
      commit([create], { force: true, start_branch: 'main' }),
      commit([create], { start_branch: 'main', start_project: 'acme/platform/payments-api' }),
    ],
  },
  cherry_pick_commit: { runs: [{ id: P, sha: 'abc1234', branch: 'main' }], asks: [] },
  revert_commit: { runs: [{ id: P, sha: 'abc1234', branch: 'main' }], asks: [] },
  create_commit_comment: { runs: [{ id: P, sha: 'abc1234', note: 'hi' }], asks: [] },
  create_pipeline: { runs: [{ id: P, ref: 'main' }], asks: [] },
  // The on-call's Retry button: it changes no data.
  retry_pipeline: { runs: [{ id: P, pipeline_id: 1 }], asks: [] },
  // Stops running jobs mid-way; they cannot be resumed.
  cancel_pipeline: { runs: [], asks: [{ id: P, pipeline_id: 1 }] },
  delete_pipeline: { runs: [], asks: [{ id: P, pipeline_id: 1 }] },
  create_release: { runs: [{ id: P, tag_name: 'v9', description: 'notes' }], asks: [] },
  // A release's old notes, name, milestones and date are kept nowhere.
  update_release: {
    runs: [{ id: P, tag_name: 'v1.0.0' }],
    asks: [
      { id: P, tag_name: 'v1.0.0', description: 'new notes' },
      { id: P, tag_name: 'v1.0.0', name: 'n' },
      { id: P, tag_name: 'v1.0.0', milestones: [] },
      { id: P, tag_name: 'v1.0.0', released_at: '2026-01-01T00:00:00Z' },
    ],
  },
  // Notification settings: the level, events and email they replace are kept nowhere; an empty call changes nothing.
  update_notification_settings: {
    runs: [{}],
    asks: [{ level: 'watch' }, { events: { new_note: false } }, { notification_email: 'alice@acme.example' }],
  },
  update_group_notification_settings: {
    runs: [{ id: 'acme' }],
    asks: [
      { id: 'acme', level: 'disabled' },
      { id: 'acme', events: { new_note: true } },
    ],
  },
  update_project_notification_settings: {
    runs: [{ id: P }],
    asks: [
      { id: P, level: 'custom' },
      { id: P, events: { failed_pipeline: true } },
    ],
  },
  create_epic: {
    runs: [{ id: 'acme', title: 't', description: 'd', labels: 'a', start_date_fixed: '2030-01-01' }],
    asks: [],
  },
  // Title, description and fixed dates are kept nowhere; labels keep label events, close and reopen undo each other.
  update_epic: {
    runs: [
      { id: 'acme', epic_iid: 1, labels: 'a' },
      { id: 'acme', epic_iid: 1, state_event: 'close' },
      { id: 'acme', epic_iid: 1, due_date_is_fixed: false },
    ],
    asks: [
      { id: 'acme', epic_iid: 1, title: 't' },
      { id: 'acme', epic_iid: 1, description: 'd' },
      { id: 'acme', epic_iid: 1, start_date_fixed: '2030-01-01' },
      { id: 'acme', epic_iid: 1, due_date_fixed: '2030-01-01' },
    ],
  },
  delete_epic: { runs: [], asks: [{ id: 'acme', epic_iid: 1 }] },
  create_epic_todo: { runs: [{ id: 'acme', epic_iid: 1 }], asks: [] },
  // The settings it replaces (credentials too) are kept nowhere, and they decide where the project's events go.
  set_integration: {
    runs: [],
    asks: [
      { id: P, slug: 'external-wiki', settings: { external_wiki_url: 'https://w.example' } },
      { id: P, slug: 'team-inbox', settings: {} },
    ],
  },
  delete_integration: { runs: [], asks: [{ id: P, slug: 'emails-on-push' }] },
  create_snippet: { runs: [{ id: P, title: 't', file_name: 'f.txt', content: 'c', visibility: 'private' }], asks: [] },
  // A snippet keeps no earlier version of its text or settings; a call that names nothing replaces nothing.
  update_snippet: {
    runs: [{ id: P, snippet_id: 1 }],
    asks: ['title', 'file_name', 'content', 'description', 'visibility'].map((key) => ({
      id: P,
      snippet_id: 1,
      [key]: key === 'visibility' ? 'public' : 'x',
    })),
  },
  delete_snippet: { runs: [], asks: [{ id: P, snippet_id: 1 }] },
  delete_package: { runs: [], asks: [{ id: P, package_id: 1 }] },
  // A new account replaces nothing; a new administrator controls the whole instance.
  create_user: {
    runs: [
      { email: 'g@acme.example', username: 'g', name: 'G', password: 'long enough' },
      { email: 'h@acme.example', username: 'h', name: 'H', reset_password: true, admin: false },
    ],
    asks: [{ email: 'g@acme.example', username: 'g', name: 'G', force_random_password: true, admin: true }],
  },
  // An account's old values are kept nowhere; a new password locks its owner out until changed; admin moves control.
  update_user: {
    runs: [{ id: 7 }, { id: 7, skip_reconfirmation: true }],
    asks: [
      { id: 7, email: 'x@acme.example' },
      { id: 7, username: 'x' },
      { id: 7, name: 'X' },
      { id: 7, bio: '' },
      { id: 7, extern_uid: 'u', provider: 'ldapmain' },
      { id: 7, password: 'new secret!' },
      { id: 7, admin: true },
      { id: 7, admin: false },
    ],
  },
  delete_user_identity: { runs: [], asks: [{ id: 7, provider: 'ldapmain' }] },
  delete_user: { runs: [], asks: [{ id: 7 }, { id: 7, hard_delete: true }] },
  create_scim_user: {
    runs: [
      {
        group_path: 'acme',
        externalId: 'e',
        userName: 'u',
        emails: [{ type: 'work', value: 'u@acme.example', primary: true }],
        name: { formatted: 'U V', givenName: 'U', familyName: 'V' },
      },
    ],
    asks: [],
  },
  // A Replace or Add overwrites without history; active set to false removes the user's single-sign-on identity.
  update_scim_user: {
    runs: [],
    asks: [
      { group_path: 'acme', id: 'e', Operations: [{ op: 'Replace', path: 'active', value: false }] },
      { group_path: 'acme', id: 'e', Operations: [{ op: 'Replace', path: 'active', value: 'false' }] },
      { group_path: 'acme', id: 'e', Operations: [{ op: 'Replace', path: 'userName', value: 'x' }] },
      { group_path: 'acme', id: 'e', Operations: [{ op: 'Add', path: 'name.formatted', value: 'X' }] },
    ],
  },
  delete_scim_user: { runs: [], asks: [{ group_path: 'acme', id: 'e' }] },
  create_group: { runs: [{ name: 'Lab', path: 'lab', visibility: 'private' }], asks: [] },
  // Adding grants access and replaces nothing; an owner may delete the group and remove everyone else.
  add_group_member: {
    runs: [{ id: 'acme', user_id: 6, access_level: 40, expires_at: '2030-01-01' }],
    asks: [{ id: 'acme', user_id: 6, access_level: 50 }],
  },
  add_project_member: { runs: [{ id: P, user_id: 6, access_level: 40 }], asks: [] },
  // The level it replaces is kept nowhere; access_level is required, so every call replaces it.
  update_group_member: { runs: [], asks: [{ id: 'acme', user_id: 6, access_level: 10 }] },
  update_project_member: { runs: [], asks: [{ id: P, user_id: 6, access_level: 40, expires_at: '2030-01-01' }] },
  remove_group_member: { runs: [], asks: [{ id: 'acme', user_id: 6 }] },
  remove_project_member: { runs: [], asks: [{ id: P, user_id: 6 }] },
  create_broadcast_message: { runs: [{ message: 'm', ends_at: '2030-01-01T00:00:00Z' }], asks: [] },
  // Every user sees a message; its earlier text, dates, colours and target are kept nowhere.
  update_broadcast_message: {
    runs: [{ id: 1 }],
    asks: ['message', 'starts_at', 'ends_at', 'color', 'font', 'target_path']
      .map((key) => ({ id: 1, [key]: 'x' }))
      .concat([{ id: 1, broadcast_type: 'banner' } as never]),
  },
  delete_broadcast_message: { runs: [], asks: [{ id: 1 }] },
  create_group_variable: {
    runs: [{ id: 'acme', key: 'K', value: 'v', variable_type: 'file', protected: true }],
    asks: [],
  },
  // Every call replaces the value (often a credential), which is kept nowhere, for every later pipeline.
  update_group_variable: {
    runs: [],
    asks: [
      { id: 'acme', key: 'K', value: 'v' },
      { id: 'acme', key: 'K', value: 'v', protected: false },
    ],
  },
  delete_group_variable: { runs: [], asks: [{ id: 'acme', key: 'DEPLOY_ENV' }] },
  // Instance settings apply to every user at once, and the values replaced are kept nowhere.
  update_application_settings: { runs: [], asks: [{ settings: { signup_enabled: false } }, { settings: {} }] },
  // An export changes nothing in the group; an import only adds a new group.
  export_group: { runs: [{ id: 'acme' }], asks: [] },
  import_group: { runs: [{ name: 'Copy', path: 'copy', file: 'H4sIAAAA', parent_id: 1 }], asks: [] },
  // Beyond the spec: jobs, branches, tags, merge requests and issues.
  // Judged by the job it retries (a manual one starts at once): unread, as here, it asks (test/unit/policy/effect-facts.test.ts).
  retry_job: { runs: [], asks: [{ id: P, job_id: 3 }] },
  // A job stopped half-way cannot be resumed; a manual job is a gate someone set for a person.
  cancel_job: { runs: [], asks: [{ id: P, job_id: 3 }] },
  play_job: { runs: [], asks: [{ id: P, job_id: 3 }] },
  erase_job: { runs: [], asks: [{ id: P, job_id: 3 }] },
  create_branch: { runs: [{ id: P, branch: 'fix/x', ref: 'main' }], asks: [] },
  delete_branch: { runs: [], asks: [{ id: P, branch: 'fix/x' }] },
  delete_merged_branches: { runs: [], asks: [{ id: P }] },
  // The most permissive matching rule wins: a wildcard asks, and an exact name asks unless the rules read show none covers it.
  protect_branch: {
    runs: [],
    asks: [
      { id: P, name: 'release/*', push_access_level: 40 },
      { id: P, name: 'hotfix' },
    ],
  },
  unprotect_branch: { runs: [], asks: [{ id: P, name: 'main' }] },
  create_tag: { runs: [{ id: P, tag_name: 'v9', ref: 'main' }], asks: [] },
  delete_tag: { runs: [], asks: [{ id: P, tag_name: 'v1.0.0' }] },
  create_merge_request: { runs: [{ id: P, source_branch: 'fix/x', target_branch: 'main', title: 'Fix' }], asks: [] },
  // Close and reopen undo each other and label changes leave label events; new text replaces text kept nowhere.
  update_merge_request: {
    runs: [
      { id: P, merge_request_iid: 1, state_event: 'close' },
      { id: P, merge_request_iid: 1, add_labels: 'bug' },
    ],
    asks: [
      { id: P, merge_request_iid: 1, title: 'New' },
      { id: P, merge_request_iid: 1, description: '' },
      { id: P, merge_request_iid: 1, target_branch: 'release' },
    ],
  },
  merge_merge_request: { runs: [], asks: [{ id: P, merge_request_iid: 1, sha: '54b5d197' }] },
  approve_merge_request: { runs: [], asks: [{ id: P, merge_request_iid: 1 }] },
  comment_on_merge_request: { runs: [{ id: P, merge_request_iid: 1, body: 'LGTM' }], asks: [] },
  create_issue: { runs: [{ id: P, title: 'main is red', issue_type: 'incident', labels: 'incident' }], asks: [] },
  // Opens one issue written from a triage; refused while the branch is not red, and never a second for one incident.
  open_incident_issue: { runs: [{ id: P }], asks: [] },
  // A branch, a revert commit on it and a merge request, all undone by closing and deleting; the target branch is
  // untouched. It runs at once on the facts it reads (the commit in full and the target, pinned; an earlier press's
  // branch or merge request refuses it), proven in test/contract/revert-as-merge-request.test.ts; judged without
  // them, as here, it never runs unasked.
  revert_as_merge_request: { runs: [], asks: [{ id: P, sha: 'abc1234' }] },
  // Stopping takes down what runs there (its on_stop job), forced or not.
  stop_environment: {
    runs: [],
    asks: [
      { id: P, environment_id: 1 },
      { id: P, environment_id: 1, force: true },
    ],
  },
  // An approval may start a production deploy; a rejection fails it: either way a person decides.
  approve_deployment: {
    runs: [],
    asks: [
      { id: P, deployment_id: 1, status: 'approved' },
      { id: P, deployment_id: 1, status: 'rejected' },
    ],
  },
  // Deploys an older commit: always confirmed, naming what runs now and what will.
  rollback_environment: { runs: [], asks: [{ id: P, environment: 'production' }] },
  update_issue: {
    runs: [
      { id: P, issue_iid: 1, state_event: 'close' },
      { id: P, issue_iid: 1, remove_labels: 'incident' },
    ],
    asks: [
      { id: P, issue_iid: 1, title: 'New' },
      { id: P, issue_iid: 1, description: 'x' },
    ],
  },
  comment_on_issue: { runs: [{ id: P, issue_iid: 1, body: 'Retried; green again.' }], asks: [] },
};

const changes = operations.filter((op) => op.effect !== 'read');

describe('safety decisions of every change', () => {
  it('has a decision written down for exactly the changes in the registry', () => {
    expect(Object.keys(DECISIONS).sort()).toEqual(changes.map((op) => op.name).sort());
  });

  it.each(changes.map((op) => [op.name, op] as const))(
    '%s records what it leaves behind, and is never retried if it may ask',
    (_name, op) => {
      expect(op.undo?.length).toBeGreaterThan(20);
      if (op.effect === 'destructive' || op.needsApproval) expect(op.idempotent).toBe(false);
    },
  );

  it.each(changes.map((op) => [op.name, op] as const))(
    '%s asks a human for exactly the inputs its decision says',
    (_name, op) => {
      const { runs, asks } = DECISIONS[op.name];
      for (const raw of runs)
        expect(decide(op, validateInput(op, raw), { readOnly: false }), JSON.stringify(raw)).toEqual({ kind: 'run' });
      for (const raw of asks)
        expect(decide(op, validateInput(op, raw), { readOnly: false }).kind, JSON.stringify(raw)).toBe('approve');
      // A call that says it always asks (help: "Asks you to approve it") has no input that runs at once.
      if (op.effect === 'destructive' || op.alwaysAsks) expect(runs).toEqual([]);
    },
  );

  it.each([
    ['delete_snippet', { id: P, snippet_id: 7 }, ['project: "acme/web"', 'snippet_id: 7', 'gone for good']],
    ['delete_package', { id: P, package_id: 3 }, ['project: "acme/web"', 'package_id: 3', 'gone for good']],
    ['delete_user', { id: 12 }, ['user: 12', 'gone for good']],
    ['delete_user', { id: 12, hard_delete: true }, ['user: 12', 'hard_delete: true', 'every group they solely own']],
    [
      'delete_user_identity',
      { id: 12, provider: 'ldapmain' },
      ['user: 12', 'provider: "ldapmain"', 'no longer sign in'],
    ],
    [
      'update_scim_user',
      { group_path: 'acme', id: 'e-1', Operations: [{ op: 'Replace', path: 'active', value: false }] },
      ['group_path: "acme"', 'user: "e-1"', 'path: "active"', 'value: false', 'deactivates'],
    ],
    [
      'update_scim_user',
      { group_path: 'acme', id: 'e-1', Operations: [{ op: 'Replace', path: 'userName', value: 'x' }] },
      ['group_path: "acme"', 'user: "e-1"', 'path: "userName"', 'overwrites "userName"'],
    ],
    ['delete_scim_user', { group_path: 'acme', id: 'e-1' }, ['group_path: "acme"', 'user: "e-1"', 'loses the group']],
    ['remove_group_member', { id: 'acme', user_id: 6 }, ['"acme"', 'user_id: 6', 'loses this access at once']],
    [
      'update_project_member',
      { id: P, user_id: 6, access_level: 10 },
      ['project: "acme/web"', 'user_id: 6', 'access_level: 10', 'keeps the old one nowhere'],
    ],
    ['delete_broadcast_message', { id: 4 }, ['broadcast_message: 4', 'Cannot be undone']],
    [
      'delete_group_variable',
      { id: 'acme', key: 'DEPLOY_ENV' },
      ['group: "acme"', 'key: "DEPLOY_ENV"', 'pipelines that need the variable fail'],
    ],
  ] as const)('%s names its target in the approval request', (name, raw, expected) => {
    const op = operations.find((o) => o.name === name)!;
    const decision = decide(op, validateInput(op, raw), { readOnly: false });
    expect(decision.kind).toBe('approve');
    for (const text of expected) expect(decision.kind === 'approve' && decision.prompt).toContain(text);
  });

  it('names each file a commit deletes or moves, and the other project a commit copies from', () => {
    const op = operations.find((o) => o.name === 'create_commit')!;
    const prompt = (raw: Record<string, unknown>) => {
      const d = decide(op, validateInput(op, raw), { readOnly: false });
      return d.kind === 'approve' ? d.prompt : '';
    };
    expect(
      prompt(
        commit([
          { action: 'delete', file_path: 'README.md' },
          { action: 'move', file_path: 'b.md', previous_path: 'a.md' },
        ]),
      ),
    ).toContain('it deletes "README.md", moves "a.md" to "b.md"');
    expect(prompt(commit([create], { start_branch: 'main', start_project: 'acme/platform/payments-api' }))).toContain(
      'it copies the tree of project "acme/platform/payments-api" at "main" into branch "main" of project "acme/web"',
    );
  });
});
