// A code hosting service on loopback whose every string is hostile: whatever an approval request looks up (a person, a
// project or group path, a job, a pipeline, a protected branch, any record or list), every name, title, ref, stage
// and status in the answer is the given text after the field's name in braces ("{name}…", "{stage}…", so a test can
// tell which field it sees), and a lookup it is told to fail fails in those words ("{message}…").
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HostileService {
  url: string;
  /** Every GET it answered, as method and path with query. */
  requests: string[];
  close(): Promise<void>;
}

export interface HostileOptions {
  /** The text every string field of every answer holds, after `{field}`. */
  text: string;
  /** Ids of users whose lookup fails: 404 with `text` as the service's message. */
  failingUsers?: number[];
}

/** Ids that the record for `id` points at (its pipeline, its user), distinct from any id a test asks about. */
const NESTED_PIPELINE_ID = 900_001;
const NESTED_USER_ID = 900_002;

function record(id: number, text: string): Record<string, unknown> {
  const t = (field: string) => `{${field}}${text}`;
  const strings = (...fields: string[]) => Object.fromEntries(fields.map((field) => [field, t(field)]));
  return {
    id,
    iid: id,
    ...strings(
      'name',
      'username',
      'title',
      'description',
      'path',
      'path_with_namespace',
      'full_path',
      'name_with_namespace',
    ),
    ...strings('ref', 'stage', 'status', 'sha', 'tag_name', 'key', 'value'),
    access_level: 30,
    state: 'active',
    when: 'manual',
    pipeline: { id: NESTED_PIPELINE_ID, iid: NESTED_PIPELINE_ID, ...strings('ref', 'status', 'sha') },
    user: { id: NESTED_USER_ID, ...strings('username', 'name') },
    push_access_levels: [{ access_level: 30, ...strings('access_level_description') }],
    merge_access_levels: [{ access_level: 30, ...strings('access_level_description') }],
    web_url: 'http://127.0.0.1/hostile',
  };
}

export async function startHostileService(options: HostileOptions): Promise<HostileService> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const segments = url.pathname
      .replace(/^\/api\/v4\//, '')
      .split('/')
      .map(decodeURIComponent);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, {
        'content-type': 'application/json',
        'x-page': '1',
        'x-per-page': '100',
        'x-next-page': '',
        'x-total': '1',
      });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET') return send(405, { message: '405 Method Not Allowed' });
    const last = segments.at(-1) ?? '';
    if (segments[0] === 'users' && segments.length === 2 && options.failingUsers?.includes(Number(last))) {
      return send(404, { message: `{message}${options.text}` });
    }
    // The spec's own way of reading one project by id: the list bracketed by id_after and id_before.
    const after = url.searchParams.get('id_after');
    if (segments.length === 1 && segments[0] === 'projects' && after !== null)
      return send(200, [record(Number(after) + 1, options.text)]);
    if (/^\d+$/.test(last)) return send(200, record(Number(last), options.text));
    // A record that is no list (a project or group named by path): the answer for any name.
    if (segments.length === 2 && ['projects', 'groups'].includes(segments[0]))
      return send(200, record(1, options.text));
    return send(200, [record(1, options.text)]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
