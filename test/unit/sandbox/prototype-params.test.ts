// Parameters named after what every JavaScript object inherits (constructor, toString, hasOwnProperty, __proto__) reach
// the sandbox as the service reads them: unknown names ignored (and logged), a hash's key one more name, never a 500.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeQueryString } from '../../../src/sandbox/core/params.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { api } from './sandbox-client.js';

const NAMES = ['constructor', 'toString', 'hasOwnProperty', '__proto__'] as const;
/** A seeded value for each path parameter, enough for the route to be found. */
const VALUES: Record<string, string> = { id: 'acme%2Fweb', file_path: 'README.md', user_id: '2', group_id: 'acme' };

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sandbox?.close();
});

const endpoints = readFileSync(new URL('../../data/endpoints.tsv', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => line.split('\t'))
  // Deleting is not what this is about: the seeded story stays whole for the other endpoints.
  .filter(([method]) => method !== 'DELETE');

describe('names objects inherit, as request parameters', () => {
  it.each(NAMES)(
    '%s in the query, a hash, a form or a JSON body of every endpoint: ignored, never a 500',
    async (name) => {
      const query = `${name}=1&not[${name}]=x&custom_attributes[${name}]=x`;
      const wrong: string[] = [];
      for (const [method, pattern] of endpoints) {
        const path = pattern.replace(/:(\w+)/g, (_, param: string) => VALUES[param] ?? '1');
        const bodied = method !== 'GET' && method !== 'HEAD';
        const answers = [await api(sandbox, method, `${path}?${query}`, { as: 'admin' })];
        if (bodied) {
          answers.push(await api(sandbox, method, path, { as: 'admin', form: query }));
          answers.push(await api(sandbox, method, path, { as: 'admin', json: JSON.parse(`{"${name}": 1}`) }));
        }
        for (const answer of answers) {
          if (answer.status >= 500 || answer.text.includes(`${name} is not a known parameter`))
            wrong.push(`${method} ${pattern}: ${answer.status} ${answer.text.slice(0, 100)}`);
        }
      }
      expect(wrong).toEqual([]);
      expect(sandbox.requests.all().some((r) => r.unknownParams.includes(name))).toBe(true);
    },
  );

  it.each(NAMES)('custom_attributes[%s] filters by that name, which no project has', async (name) => {
    const all = await api(sandbox, 'GET', '/projects?per_page=100', { as: 'admin' });
    expect(all.data.length).toBeGreaterThan(0);
    const filtered = await api(sandbox, 'GET', `/projects?custom_attributes[${name}]=x`, { as: 'admin' });
    expect(filtered.status).toBe(200);
    expect(filtered.data).toEqual([]);
    const users = await api(sandbox, 'GET', `/users?custom_attributes[${name}]=x`, { as: 'admin' });
    expect(users.data).toEqual([]);
  });

  it.each(NAMES)('%s as the path of a group or project is one that does not exist: 404', async (name) => {
    for (const path of [`/groups/${name}`, `/projects/${name}`, `/projects/acme%2F${name}`]) {
      expect((await api(sandbox, 'GET', path, { as: 'admin' })).status, path).toBe(404);
    }
  });

  it('decodes them into trees that inherit nothing', () => {
    const tree = decodeQueryString('__proto__[x]=1&a[constructor]=2');
    expect(Object.getPrototypeOf(tree)).toBeNull();
    expect(Object.hasOwn(tree, '__proto__')).toBe(true);
    expect((tree.a as Record<string, unknown>).constructor).toBe('2');
  });
});
