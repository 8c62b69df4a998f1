// A scripted service that answers every request with huge data of one shape, for the result-cap audits of every
// operation: over MCP (result-cap-every-operation.test.ts) and in chat and Slack (result-cap-chat.test.ts), two files
// so that the two CPU-bound walks over the registry run in separate workers.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { HOSTILE_LOGS } from '../../tools/bench/hostile-logs.mjs';

const long = (n: number, seed = 'abc') => `${seed} `.repeat(Math.ceil(n / (seed.length + 1))).slice(0, n);
const record = (i: number) => ({
  id: i + 1,
  iid: i + 1,
  name: `item-${i}`,
  title: `Item ${i}`,
  status: 'success',
  state: 'opened',
  ref: 'main',
  description: long(1500, `description ${i}`),
  web_url: `https://code.example/acme/web/-/items/${i}`,
  author: { id: 7, username: 'erin', name: 'Erin' },
  labels: Array.from({ length: 30 }, (_, j) => `label-${j}`),
});

/**
 * Each shape of answer, as the service would send it: JSON (or text) of tens to hundreds of kilobytes, many times any
 * cap the audits set; the texts beyond what an attachment may embed (256 KiB).
 */
export const SHAPES: Record<string, { type: string; body: string }> = {
  'a list of wide objects': {
    type: 'application/json',
    body: JSON.stringify(Array.from({ length: 150 }, (_, i) => record(i))),
  },
  'an object with long strings and nested lists': {
    type: 'application/json',
    body: JSON.stringify({
      ...record(0),
      description: long(200_000),
      diff: long(100_000, '+line'),
      // Records enough to be cut many times over (a cap is a few thousand characters); every one more is measured,
      // redacted and parsed in each of the registry's ~180 calls for nothing.
      sections: Array.from({ length: 1000 }, (_, i) => ({ name: `section_${i}`, lines: i, collapsed: i % 2 === 0 })),
      commits: Array.from({ length: 60 }, (_, i) => record(i)),
    }),
  },
  'a very wide object': {
    type: 'application/json',
    body: JSON.stringify(Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`setting_${i}`, `value ${i}`]))),
  },
  'nested arrays': {
    type: 'application/json',
    body: JSON.stringify(
      Array.from({ length: 40 }, (_, i) =>
        Array.from({ length: 40 }, (_, j) => Array.from({ length: 20 }, (_, k) => `cell ${i}.${j}.${k}`)),
      ),
    ),
  },
  'a bare long string': { type: 'application/json', body: JSON.stringify(long(400_000)) },
  'a long text with runner sections': { type: 'text/plain', body: HOSTILE_LOGS['alternating start and end'](400_000) },
};

/** Inputs the plain values of sampleInput cannot make (rules beyond the schema). */
export const INPUTS: Record<string, Record<string, unknown>> = {
  create_commit: { id: 1, branch: 'main', commit_message: 'm', actions: [{ action: 'delete', file_path: 'a.txt' }] },
  create_scim_user: {
    group_path: 'acme',
    externalId: 'x1',
    userName: 'erin',
    emails: [{ type: 'work', value: 'erin@example.com', primary: true }],
    name: { formatted: 'Erin E', givenName: 'Erin', familyName: 'E' },
  },
  wait_for_pipeline: { id: 1, pipeline_id: 1, timeout_seconds: 1 },
  wait_until_settled: { id: 1, ref: 'main', timeout_seconds: 1 },
};

/**
 * The scripted service for the file's tests and a client on it; `answerWith` names the shape of every answer from then
 * on (the tests of a file run one after another, so each sets its own).
 */
export function useHugeAnswers(): { readonly client: HttpClient; answerWith(name: string): void } {
  let shape = SHAPES['a list of wide objects'];
  let service: Server | undefined;
  let client: HttpClient | undefined;
  beforeAll(async () => {
    service = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.method === 'HEAD') {
          res.writeHead(200, { 'content-type': shape.type, 'x-gitlab-file-name': 'f', 'x-gitlab-size': '1' }).end();
          return;
        }
        res.writeHead(200, { 'content-type': `${shape.type}; charset=utf-8` }).end(shape.body);
      });
    });
    await new Promise<void>((resolve) => service!.listen(0, '127.0.0.1', resolve));
    client = new HttpClient({
      baseUrl: `http://127.0.0.1:${(service.address() as AddressInfo).port}`,
      token: 'scripted',
      scimToken: 'scripted',
      retry: { maxRetries: 0 },
    });
  });
  afterAll(async () => {
    await client?.close();
    await new Promise<void>((resolve) => (service ? service.close(() => resolve()) : resolve()));
  });
  return {
    get client() {
      if (!client) throw new Error('the scripted service is not running');
      return client;
    },
    answerWith(name: string) {
      shape = SHAPES[name];
    },
  };
}
