// Small builders the contract suites share: the seeded commits of a branch, looked up as a front end would.
import { expect } from 'vitest';
import { validateInput } from '../../src/operations/engine/validate.js';
import { decide } from '../../src/policy/policy.js';
import type { ContractSuite, Role } from './harness.js';

/** The seeded projects the suites act on. */
export const WEB = 'acme/web';
export const PAYMENTS = 'acme/platform/payments-api';
export const INFRA = 'acme/platform/infra';

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

/** The sandbox's id of the seeded user `username`. */
export const seededUserId = (suite: ContractSuite, username: string) => suite.sandbox.store.findUser(username)!.id;

/** What operation `name` answers for `input`, asked as `as` (default the maintainer), checked to be a 200. */
export async function answered<T>(
  suite: ContractSuite,
  name: string,
  input: Record<string, unknown>,
  as: Role = 'maintainer',
): Promise<T> {
  const result = await suite.call(name, input, { as });
  expect(result.status, name).toBe(200);
  return result.data as T;
}

/** A list operation's first hundred results for `input`, asked as `as` (default the maintainer). */
export async function firstHundred<T>(
  suite: ContractSuite,
  name: string,
  input: Record<string, unknown>,
  as: Role = 'maintainer',
): Promise<T[]> {
  return (await suite.call(name, { per_page: 100, ...input }, { as })).data as T[];
}

/** What the policy decides for operation `name` with `raw` on a writable connection: 'run', 'approve' or 'refuse'. */
export function policyKind(suite: ContractSuite, name: string, raw: Record<string, unknown>) {
  const op = suite.operation(name);
  return decide(op, validateInput(op, raw) as Record<string, unknown>, { readOnly: false }).kind;
}

/** Operation `name` with `input`, called as `as`, is refused with exactly this status and message. */
export async function expectRefusal(
  suite: ContractSuite,
  name: string,
  input: Record<string, unknown>,
  as: Role,
  [status, message]: [number, string],
) {
  const error = await suite.refusal(name, input, as);
  expect([error.status, error.message], name).toEqual([status, message]);
}

/** Operation `name` with `input` is refused without a token: 401 with the service's words. */
export function expectNeedsToken(suite: ContractSuite, name: string, input: Record<string, unknown>) {
  return expectRefusal(suite, name, input, 'anonymous', [401, '401 Unauthorized']);
}
