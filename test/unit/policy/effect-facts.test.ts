// Approval judged by effect: the policy's decision on calls whose effect depends on what the service holds
// (op.facts), over a table of facts as read; and, registry-wide, that such a call never runs unasked when its facts
// were not read, and that every change able to make something private readable by more people reads and asks.
import { describe, expect, it } from 'vitest';
import type { ProtectionRule } from '../../../src/operations/areas/shared/branch-protections.js';
import type { FactsReading, JobFacts } from '../../../src/operations/engine/effect-facts.js';
import { factsNeeded } from '../../../src/operations/engine/effect-facts.js';
import { EXPOSURE_FIELDS } from '../../../src/operations/areas/shared/exposure.js';
import { operations } from '../../../src/operations/index.js';
import type { MembershipFacts } from '../../../src/operations/areas/shared/member-source.js';
import { validateInput } from '../../../src/operations/engine/validate.js';
import { decide, type Decision } from '../../../src/policy/policy.js';

const P = 'acme/web';
const op = (name: string) => {
  const found = operations.find((o) => o.name === name);
  if (!found) throw new Error(`no operation ${name}`);
  return found;
};
const read = (facts: unknown): FactsReading => ({ read: true, facts });
const judge = (name: string, raw: Record<string, unknown>, facts?: FactsReading): Decision =>
  decide(op(name), validateInput(op(name), raw) as Record<string, unknown>, { readOnly: false }, undefined, facts);

const main: ProtectionRule = { name: 'main', push: 40, merge: 40, forcePush: false };
const releases: ProtectionRule = { name: 'release/*', push: 40, merge: 40, forcePush: false };
const job = (over: Partial<JobFacts>): JobFacts => ({
  id: 32,
  name: 'deploy:production',
  stage: 'deploy',
  status: 'failed',
  pipeline_id: 9,
  ref: 'main',
  ...over,
});
const direct: MembershipFacts = { direct: true, sources: [] };
const inherited: MembershipFacts = {
  direct: false,
  username: 'bob',
  place: P,
  access: 30,
  sources: [{ path: 'acme', access_level: 30 }],
};

/** [operation, input, facts as read, expected kind, what the reason (or refusal) must say]. */
const CASES: Array<[string, Record<string, unknown>, FactsReading | undefined, Decision['kind'], RegExp?]> = [
  // protect_branch: the most permissive matching rule wins, wildcards included.
  ['protect_branch', { id: P, name: 'hotfix-1' }, read([main, releases]), 'run'],
  ['protect_branch', { id: P, name: 'main' }, read([main]), 'run'], // the same name: the service refuses a second rule
  [
    'protect_branch',
    { id: P, name: 'mai*', push_access_level: 30, allow_force_push: true },
    read([main]),
    'approve',
    /On "main" it allows push by developers \(now maintainers\), force push \(now refused\)/,
  ],
  [
    'protect_branch',
    { id: P, name: 'release/1.0', push_access_level: 30 },
    read([main, releases]),
    'approve',
    /On "release\/1\.0" \(now under "release\/\*"\) it allows push by developers/,
  ],
  [
    'protect_branch',
    { id: P, name: 'release/1.0', push_access_level: 60 },
    read([releases]),
    'approve',
    /opens nothing there now/,
  ],
  [
    'protect_branch',
    { id: P, name: 'feature/*' },
    read([main]),
    'approve',
    /"feature\/\*" covers every branch it matches, now and later/,
  ],
  [
    'protect_branch',
    { id: P, name: 'feature/*' },
    { read: false, why: 'could not be read (503)' },
    'approve',
    /protected branches.*could not be read \(503\)/,
  ],
  [
    'unprotect_branch',
    { id: P, name: 'main' },
    read([main, { name: 'ma*', push: 30, merge: 40, forcePush: false }]),
    'approve',
    /"main" stays covered by "ma\*" \(developers push/,
  ],
  [
    'unprotect_branch',
    { id: P, name: 'main' },
    read([main]),
    'approve',
    /No other rule matches "main": it is left unprotected/,
  ],
  // retry_job: the service's retry starts a manual job at once.
  ['retry_job', { id: P, job_id: 32 }, read(job({ when: 'on_success' })), 'run'],
  ['retry_job', { id: P, job_id: 32 }, read(job({ when: 'manual' })), 'approve', /starts a manual job at once/],
  [
    'retry_job',
    { id: P, job_id: 32 },
    read(job({ status: 'canceled' })),
    'approve',
    /does not say whether this job is a manual one/,
  ],
  ['retry_job', { id: P, job_id: 32 }, read(job({ status: 'running' })), 'run'], // not retryable: the service refuses it
  [
    'retry_job',
    { id: P, job_id: 32 },
    { read: false, why: 'could not be read (404)' },
    'approve',
    /whether the job is a manual one, which could not be read/,
  ],
  // update_issue: making a confidential issue readable by everyone who sees the project.
  [
    'update_issue',
    { id: P, issue_iid: 1, confidential: false },
    read({ confidential: true }),
    'approve',
    /makes a confidential issue readable/,
  ],
  ['update_issue', { id: P, issue_iid: 1, confidential: false }, read({ confidential: false }), 'run'],
  [
    'update_issue',
    { id: P, issue_iid: 1, confidential: false },
    read({}),
    'approve',
    /did not say whether the issue is confidential/,
  ],
  ['update_issue', { id: P, issue_iid: 1, confidential: true }, undefined, 'run'],
  [
    'update_issue',
    { id: P, issue_iid: 1, confidential: false, title: 'T' },
    read({ confidential: true }),
    'approve',
    /readable by everyone.*overwrites the issue's title/,
  ],
  [
    'update_snippet',
    { id: P, snippet_id: 1, visibility: 'public' },
    read({ visibility: 'private' }),
    'approve',
    /makes the snippet public \(now private\): anyone can then read it/,
  ],
  [
    'update_snippet',
    { id: P, snippet_id: 1, visibility: 'internal' },
    read({ visibility: 'public' }),
    'approve',
    /^It overwrites the snippet's visibility/,
  ],
  // approve_merge_request: pinned to the head shown (the pin itself is tested through the front ends).
  ['approve_merge_request', { id: P, merge_request_iid: 1, sha: '54b5d197' }, undefined, 'approve', /at head 54b5d197/],
  [
    'approve_merge_request',
    { id: P, merge_request_iid: 1 },
    undefined,
    'approve',
    /head commit, which was not read on this path/,
  ],
  // merge_merge_request alike: a whole sha needs no read; without one (or a short one) the head is read and pinned.
  [
    'merge_merge_request',
    { id: P, merge_request_iid: 1, sha: '54b5d19754b5d19754b5d19754b5d19754b5d197' },
    undefined,
    'approve',
    /the head 54b5d197 exactly/,
  ],
  [
    'merge_merge_request',
    { id: P, merge_request_iid: 1, sha: '54b5d197' },
    undefined,
    'approve',
    /head commit, which was not read on this path/,
  ],
  // Members: the service changes and removes only a membership of the place itself.
  ['remove_project_member', { id: P, user_id: 3 }, read(direct), 'approve', /loses this access at once/],
  [
    'remove_project_member',
    { id: P, user_id: 3 },
    read(inherited),
    'deny',
    /^@bob's access to acme\/web comes from the group acme \(developer\); nothing was asked or sent\. To remove it there: group member remove acme @bob \(the tool remove_group_member with id "acme", user_id 3\)\.$/,
  ],
  [
    'update_project_member',
    { id: P, user_id: 3, access_level: 40 },
    read(inherited),
    'deny',
    /To change it there: group member update acme @bob access_level=40 .*Or raise it for acme\/web alone: project member add acme\/web @bob access_level=40\./,
  ],
  [
    'remove_project_member',
    { id: P, user_id: 6 },
    read({ direct: false, username: 'erin', place: P, sources: [] }),
    'deny',
    /^@erin is not a member of project acme\/web, directly or through a group; nothing was asked or sent\.$/,
  ],
  [
    'remove_group_member',
    { id: 'acme/platform', user_id: 3 },
    read({ ...inherited, place: 'acme/platform' }),
    'deny',
    /group member remove acme @bob/,
  ],
];

describe('decisions judged by the facts read', () => {
  it.each(CASES)('%s %j → %s', (name, raw, facts, kind, says) => {
    const decision = judge(name, raw, facts);
    expect(decision.kind).toBe(kind);
    if (says) expect(decision.kind === 'run' ? '' : decision.reason).toMatch(says);
  });

  it('shows the facts-driven reason in the prompt, and every argument under it', () => {
    const decision = judge('protect_branch', { id: P, name: 'mai*', push_access_level: 30 }, read([main]));
    expect(decision.kind === 'approve' && decision.prompt.split('\n')).toEqual([
      expect.stringMatching(
        /^Protect branch \(protect_branch\): The service applies the most permissive of all rules matching a branch/,
      ),
      'The exact call:',
      '  project: "acme/web"',
      '  name: "mai*"',
      '  push_access_level: 30',
    ]);
  });
});

/** A valid input of `op` for which its facts are needed: path values, then the field that makes them matter. */
function inputNeedingFacts(name: string): Record<string, unknown> {
  const operation = op(name);
  const raw: Record<string, unknown> = {};
  for (const param of operation.pathParams)
    raw[param] = param === 'id' ? P : param === 'name' ? 'release/*' : param === 'sha' ? 'abc1234' : 1;
  const shape = operation.input.shape as Record<string, unknown>;
  if ('confidential' in shape) raw.confidential = false;
  if ('visibility' in shape) raw.visibility = 'public';
  if ('access_level' in shape) raw.access_level = 40;
  if ('name' in shape && raw.name === undefined) raw.name = 'release/*';
  if ('user_id' in shape && raw.user_id === undefined) raw.user_id = 3;
  if ('status' in shape) raw.status = 'approved';
  if ('environment' in shape) raw.environment = 'production';
  return validateInput(operation, raw) as Record<string, unknown>;
}

const withFacts = operations.filter((o) => o.facts !== undefined);

describe('every operation that reads facts before deciding', () => {
  it('is a known set (a new one is added here with its cases above)', () => {
    expect(withFacts.map((o) => o.name).sort()).toEqual([
      'approve_deployment',
      'approve_merge_request',
      'merge_merge_request',
      'protect_branch',
      'remove_group_member',
      'remove_project_member',
      'retry_job',
      'revert_as_merge_request',
      'rollback_environment',
      'unprotect_branch',
      'update_group_member',
      'update_issue',
      'update_project_member',
      'update_snippet',
    ]);
  });

  it.each(withFacts.map((o) => [o.name]))('%s asks a human when its facts were not read, and says why', (name) => {
    const input = inputNeedingFacts(name);
    expect(factsNeeded(op(name), input)).toBe(true);
    for (const facts of [undefined, { read: false, why: 'could not be read (502 Bad Gateway)' } as const]) {
      const decision = decide(op(name), input, { readOnly: false }, undefined, facts);
      expect(decision.kind).toBe('approve');
      expect(decision.kind === 'approve' && decision.reason).toMatch(
        /Its effect depends on .+, which (was not read on this path|could not be read \(502 Bad Gateway\)); so a human decides\./,
      );
    }
  });
});

describe('making private things readable by more people', () => {
  const widening = operations.filter(
    (o) => o.effect !== 'read' && EXPOSURE_FIELDS.some((field) => field in (o.input.shape as object)),
  );

  it('covers every change with a confidential or visibility field: creations widen nothing that exists', () => {
    const creations = widening.filter((o) => o.method === 'POST' && !/\/:[a-z_]+$/.test(o.path));
    expect(creations.map((o) => o.name).sort()).toEqual(['create_group', 'create_issue', 'create_snippet']);
    for (const o of widening.filter((w) => !creations.includes(w))) expect(o.facts, o.name).toBeDefined();
  });

  it.each(widening.filter((o) => o.facts !== undefined).map((o) => [o.name]))(
    '%s asks when it makes a private or confidential item readable',
    (name) => {
      const input = inputNeedingFacts(name);
      const now = read({ confidential: true, visibility: 'private' });
      const decision = decide(op(name), input, { readOnly: false }, undefined, now);
      expect(decision.kind).toBe('approve');
      expect(decision.kind === 'approve' && decision.reason).toMatch(/readable by everyone|anyone can then read it/);
    },
  );
});
