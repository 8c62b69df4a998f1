// Tests of path templates, query strings and form bodies (src/http/route.ts).
import { describe, expect, it } from 'vitest';
import { buildPath, encodeForm, serializeQuery } from '../../../src/http/route.js';

describe('buildPath', () => {
  it('encodes a full project path as one segment', () => {
    expect(buildPath('/projects/:id/pipelines/:pipeline_id', { id: 'group/sub/app', pipeline_id: 42 })).toBe(
      '/projects/group%2Fsub%2Fapp/pipelines/42',
    );
  });

  it('encodes file paths with slashes and spaces', () => {
    expect(buildPath('/projects/:id/repository/files/:file_path/blame', { id: 7, file_path: 'src/a b.ts' })).toBe(
      '/projects/7/repository/files/src%2Fa%20b.ts/blame',
    );
  });

  it('encodes characters that would end the path', () => {
    expect(buildPath('/projects/:id/repository/tags/:tag_name', { id: 1, tag_name: 'v1.0?#%' })).toBe(
      '/projects/1/repository/tags/v1.0%3F%23%25',
    );
  });

  it('fills the optional [.format] suffix when given and drops it when absent', () => {
    const template = '/projects/:id/repository/archive[.format]';
    expect(buildPath(template, { id: 'a/b', format: 'tar.gz' })).toBe('/projects/a%2Fb/repository/archive.tar.gz');
    expect(buildPath(template, { id: 'a/b' })).toBe('/projects/a%2Fb/repository/archive');
    expect(buildPath(template, { id: 'a/b', format: '' })).toBe('/projects/a%2Fb/repository/archive');
  });

  it('names a missing or empty required parameter', () => {
    expect(() => buildPath('/projects/:id/pipelines/:pipeline_id', { id: 1 })).toThrow(
      "missing path parameter 'pipeline_id'",
    );
    expect(() => buildPath('/projects/:id', { id: '' })).toThrow("missing path parameter 'id'");
    expect(() => buildPath('/projects/:id', { id: null })).toThrow("missing path parameter 'id'");
  });

  it('rejects values that are not strings or numbers, naming the parameter', () => {
    expect(() => buildPath('/projects/:id', { id: { a: 1 } })).toThrow(
      "path parameter 'id' must be a string or a number",
    );
    expect(() => buildPath('/projects/:id', { id: Number.NaN })).toThrow("path parameter 'id'");
  });

  it('rejects dot segments that a URL parser would resolve to another endpoint', () => {
    expect(() => buildPath('/projects/:id/pipelines', { id: '..' })).toThrow("path parameter 'id' cannot be '..'");
  });

  it('does not read inherited properties as values', () => {
    expect(() => buildPath('/x/:constructor', {})).toThrow("missing path parameter 'constructor'");
  });
});

describe('serializeQuery', () => {
  it('writes arrays as key[]= pairs', () => {
    expect(serializeQuery({ labels: ['bug', 'to do'], iids: [1, 2] })).toBe(
      'labels[]=bug&labels[]=to%20do&iids[]=1&iids[]=2',
    );
  });

  it('writes hashes as key[sub]= pairs, recursing into nested objects and arrays of objects', () => {
    expect(serializeQuery({ not: { labels: 'x' }, custom_attributes: { key: 'value' } })).toBe(
      'not[labels]=x&custom_attributes[key]=value',
    );
    expect(serializeQuery({ a: { b: { c: 1 } } })).toBe('a[b][c]=1');
    expect(serializeQuery({ variables: [{ key: 'K', value: 'v' }] })).toBe('variables[][key]=K&variables[][value]=v');
  });

  it('writes booleans and numbers, leaves out undefined and sends null as empty', () => {
    expect(serializeQuery({ simple: true, archived: false, per_page: 100, search: undefined, milestone: null })).toBe(
      'simple=true&archived=false&per_page=100&milestone=',
    );
  });

  it('percent-encodes keys and values', () => {
    expect(serializeQuery({ 'a&b': 'c=d&e', search: 'ü +/' })).toBe('a%26b=c%3Dd%26e&search=%C3%BC%20%2B%2F');
    expect(serializeQuery({ h: { 'x]y': 'z' } })).toBe('h[x%5Dy]=z');
  });

  it('names the field of a value it cannot send', () => {
    expect(() => serializeQuery({ page: Number.POSITIVE_INFINITY })).toThrow("query field 'page' cannot be sent");
    expect(() => serializeQuery({ not: { id: Number.NaN } })).toThrow("query field 'not[id]'");
  });

  it('is empty for an empty query', () => {
    expect(serializeQuery({})).toBe('');
  });
});

describe('encodeForm', () => {
  it('encodes commit actions with bracket keys', () => {
    const body = {
      branch: 'main',
      commit_message: 'add a file',
      actions: [
        { action: 'create', file_path: 'a.txt', content: 'hello world' },
        { action: 'delete', file_path: 'dir/b.txt' },
      ],
    };
    expect(encodeForm(body)).toBe(
      'branch=main&commit_message=add%20a%20file' +
        '&actions[][action]=create&actions[][file_path]=a.txt&actions[][content]=hello%20world' +
        '&actions[][action]=delete&actions[][file_path]=dir%2Fb.txt',
    );
  });

  it('writes dates as ISO 8601', () => {
    expect(encodeForm({ released_at: new Date('2026-11-01T00:00:00Z') })).toBe(
      'released_at=2026-11-01T00%3A00%3A00.000Z',
    );
  });

  it('rejects a body that is not an object and names a bad field', () => {
    expect(() => encodeForm(['a'] as unknown as Record<string, unknown>)).toThrow('form body must be an object');
    expect(() => encodeForm({ file: () => 1 })).toThrow("form body field 'file' cannot be sent");
  });
});
