// Issue and merge request lists as other clients write them: labels[] arrays, lowercase none/any, the deprecated
// scope and No+Label spellings, not[...] in a query string, and refusals with the service's own words.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { api } from './sandbox-client.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

const WEB = '/projects/acme%2Fweb';
const iids = (data: Array<{ iid: number }>) => data.map((i) => i.iid).sort((a, b) => a - b);

describe('issue filters written by other clients', () => {
  test('labels as labels[] mean the same as comma-separated', async () => {
    const comma = await api(sandbox, 'GET', `${WEB}/issues?labels=bug,frontend`);
    const array = await api(sandbox, 'GET', `${WEB}/issues?labels[]=bug&labels[]=frontend`);
    expect(comma.status).toBe(200);
    expect(iids(array.data)).toEqual(iids(comma.data));
    expect(iids(comma.data)).toEqual([1, 4]);
  });

  test('none and any in any case, and the deprecated No+Label', async () => {
    const none = iids((await api(sandbox, 'GET', `${WEB}/issues?labels=None`)).data);
    expect(none).toEqual([8]);
    expect(iids((await api(sandbox, 'GET', `${WEB}/issues?labels=none`)).data)).toEqual(none);
    expect(iids((await api(sandbox, 'GET', `${WEB}/issues?labels=No%2BLabel`)).data)).toEqual(none);
    expect(iids((await api(sandbox, 'GET', `${WEB}/issues?assignee_id=any`)).data)).toEqual([1, 2, 4, 5, 6, 7]);
  });

  test('the deprecated created-by-me scope and state=all', async () => {
    const mine = await api(sandbox, 'GET', '/issues?scope=created-by-me&state=all', { as: 'developer' });
    expect(mine.status).toBe(200);
    expect(new Set(mine.data.map((i: { author: { username: string } }) => i.author.username))).toEqual(
      new Set(['bob']),
    );
  });

  test('not[...] from a query string, and not[in] checked like in', async () => {
    const answer = await api(sandbox, 'GET', `${WEB}/issues?not[labels]=bug&not[assignee_username][]=alice`);
    expect(iids(answer.data)).toEqual([3, 6, 8, 9]);
    const bad = await api(sandbox, 'GET', `${WEB}/issues?not[search]=x&not[in]=body`);
    expect([bad.status, bad.data]).toEqual([400, { error: 'not[in] does not have a valid value' }]);
    const unknown = await api(sandbox, 'GET', `${WEB}/issues?not[colour]=red`);
    expect(unknown.status).toBe(200);
    expect(sandbox.requests.all().at(-1)?.unknownParams).toEqual(['not[colour]']);
  });

  test('several assignee usernames are refused, also under not[...]', async () => {
    const answer = await api(
      sandbox,
      'GET',
      `${WEB}/issues?not[assignee_username][]=alice&not[assignee_username][]=bob`,
    );
    expect([answer.status, answer.data]).toEqual([
      400,
      { error: 'not[assignee_username] allows one value, but found 2: alice, bob' },
    ]);
  });
});

describe('merge request filters written by other clients', () => {
  test('iids[] belongs to the project list, in to the instance-wide one: elsewhere they are unknown', async () => {
    const project = await api(sandbox, 'GET', `${WEB}/merge_requests?iids[]=2`);
    expect(iids(project.data)).toEqual([2]);
    await api(sandbox, 'GET', '/groups/acme/merge_requests?iids[]=2&in=title');
    expect(sandbox.requests.all().at(-1)?.unknownParams.sort()).toEqual(['iids', 'in']);
  });

  test('approver lists take at most 5 IDs', async () => {
    const answer = await api(
      sandbox,
      'GET',
      '/merge_requests?approved_by_ids[]=1&approved_by_ids[]=2&approved_by_ids[]=3&approved_by_ids[]=4&approved_by_ids[]=5&approved_by_ids[]=6',
    );
    expect([answer.status, answer.data]).toEqual([400, { error: 'approved_by_ids does not have a valid value' }]);
  });
});
