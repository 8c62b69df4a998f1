// The chat grammar end to end: a line becomes an operation and its validated input, a meta command, or an error that helps.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { complete } from '../../../src/chat/complete.js';
import { commandLine } from '../../../src/chat/command-line.js';
import { parse } from '../../../src/chat/grammar.js';
import type { ParsedCommand, ParseOptions } from '../../../src/chat/grammar.js';
import { defineOperation, fields } from '../../../src/operations/engine/define.js';
import { findOperation, operations } from '../../../src/operations/index.js';
import { commandsOf } from './registry-words.js';

// Issues and merge requests are not in the registry yet: throwaway operations stand in for them.
const getIssue = defineOperation({
  name: 'get_issue',
  chat: 'issue get',
  area: 'issues',
  title: 'Get issue',
  description: 'Read one issue.',
  route: 'GET /projects/:id/issues/:issue_iid',
  input: z.object({ id: fields.projectId(), issue_iid: z.number().int().positive() }),
  effect: 'read',
});
const listIssues = defineOperation({
  name: 'list_issues',
  chat: 'issue list',
  area: 'issues',
  title: 'List issues',
  description: 'List issues.',
  route: 'GET /projects/:id/issues',
  input: z.object({
    id: fields.projectId(),
    iids: z.array(z.number().int()).optional(),
    labels: z.array(z.string()).optional(),
    confidential: z.boolean().optional(),
  }),
  effect: 'read',
});
const mergeRequest = defineOperation({
  name: 'merge_merge_request',
  chat: 'mr merge',
  area: 'merge_requests',
  title: 'Merge',
  description: 'Merge an MR.',
  route: 'PUT /projects/:id/merge_requests/:merge_request_iid/merge',
  input: z.object({
    id: fields.projectId(),
    merge_request_iid: z.number().int().positive(),
    squash: z.boolean().optional(),
    merge_commit_message: z.string().optional(),
  }),
  effect: 'write',
  undo: 'A revert undoes it.',
});
const withIssues: ParseOptions = { operations: [...operations, getIssue, listIssues, mergeRequest] };

/** The operation name and input of a call, or the whole result when it is not one. */
function call(line: string, options: ParseOptions = {}): unknown {
  const result = parse(line, options);
  return result.kind === 'call' ? [result.operation.name, result.input] : result;
}

function error(line: string, options: ParseOptions = {}): Extract<ParsedCommand, { kind: 'error' }> {
  const result = parse(line, options);
  if (result.kind !== 'error') throw new Error(`expected an error, got ${JSON.stringify(result)}`);
  return result;
}

describe('commands and positional values', () => {
  it('fills the path parameters in route order and types numbers typed as text', () => {
    expect(call('pipeline retry acme/web 42')).toEqual(['retry_pipeline', { id: 'acme/web', pipeline_id: 42 }]);
    expect(call('Pipeline RETRY 7 42')).toEqual(['retry_pipeline', { id: 7, pipeline_id: 42 }]);
    expect(call('file get acme/web src/app.ts ref=main')).toEqual([
      'get_file',
      { id: 'acme/web', file_path: 'src/app.ts', ref: 'main' },
    ]);
  });

  it("takes an operation's own chat values after its path parameters: the environment a rollback names", () => {
    expect(call('environment rollback acme/web production')).toEqual([
      'rollback_environment',
      { id: 'acme/web', environment: 'production' },
    ]);
    // A follow-up written back as a line reads the same way, and parses back to its input.
    const input = { id: 'acme/web', environment: 'production', to: 22 };
    const line = commandLine(findOperation('rollback_environment')!, input);
    expect(line).toBe('environment rollback acme/web production to=22');
    expect(call(line)).toEqual(['rollback_environment', input]);
    expect(call('environment rollback acme/web 3 to=1a2b3c4d')).toEqual([
      'rollback_environment',
      { id: 'acme/web', environment: 3, to: '1a2b3c4d' },
    ]);
  });

  it("reads a camelCase parameter (SCIM's) typed in any case", () => {
    expect(
      call(
        'scim create acme externalid=e2 username=hana emails=\'[{"type":"work","value":"hana@acme.example"}]\' ' +
          'name=\'{"formatted":"Hana Sato","givenName":"Hana","familyName":"Sato"}\'',
      ),
    ).toEqual([
      'create_scim_user',
      {
        group_path: 'acme',
        externalId: 'e2',
        userName: 'hana',
        emails: [{ type: 'work', value: 'hana@acme.example' }],
        name: { formatted: 'Hana Sato', givenName: 'Hana', familyName: 'Sato' },
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      },
    ]);
    const deactivate = '[{"op":"Replace","path":"active","value":false}]';
    expect(call(`scim update acme uid-1 operations='${deactivate}'`)).toEqual([
      'update_scim_user',
      { group_path: 'acme', id: 'uid-1', Operations: [{ op: 'Replace', path: 'active', value: false }] },
    ]);
    // The same key in two spellings is the same key: a list's operations add up, a text given twice is an error.
    expect(
      call(
        `scim update acme uid-1 operations='${deactivate}' Operations='[{"op":"Add","path":"userName","value":"b"}]'`,
      ),
    ).toEqual([
      'update_scim_user',
      {
        group_path: 'acme',
        id: 'uid-1',
        Operations: [
          { op: 'Replace', path: 'active', value: false },
          { op: 'Add', path: 'userName', value: 'b' },
        ],
      },
    ]);
    expect(error('scim create acme username=a userName=b').message).toBe('userName is given twice.');
    expect(call('scim list acme startindex=2')).toEqual(['list_scim_users', { group_path: 'acme', startIndex: 2 }]);
  });

  it('takes the longest command the words make', () => {
    expect(call('commit comment list acme/web abc123')).toEqual([
      'list_commit_comments',
      { id: 'acme/web', sha: 'abc123' },
    ]);
    expect(call('commit list acme/web')).toEqual(['list_commits', { id: 'acme/web' }]);
    expect(call('file blame metadata acme/web a.ts ref=v1')).toEqual([
      'get_file_blame_metadata',
      { id: 'acme/web', file_path: 'a.ts', ref: 'v1' },
    ]);
  });

  it('refuses a value beyond the path parameters, with the usage', () => {
    expect(error('pipeline retry acme/web 42 43')).toEqual({
      kind: 'error',
      message: 'Too many values: "43". pipeline retry takes <id> <pipeline_id>.',
      usage: 'pipeline retry <id> <pipeline_id> [key=value …]',
    });
    expect(error('project list payments').message).toBe(
      'Too many values: "payments". project list takes values only as key=value.',
    );
  });

  it('fills an optional path suffix positionally too', () => {
    expect(call('archive download acme/web zip sha=v1')).toEqual([
      'download_archive',
      { id: 'acme/web', format: 'zip', sha: 'v1' },
    ]);
  });
});

describe('key=value', () => {
  it('reads key=value, --key=value, --key value, and a lone --flag as true', () => {
    expect(call('release create acme/web tag_name=v1.2 ref=main --description "Notes here"')).toEqual([
      'create_release',
      { id: 'acme/web', tag_name: 'v1.2', ref: 'main', description: 'Notes here' },
    ]);
    expect(call('tree list acme/web --ref=main --recursive --path src')).toEqual([
      'list_repository_tree',
      { id: 'acme/web', ref: 'main', recursive: true, path: 'src' },
    ]);
    expect(call('release get --tag-name v1 --id acme/web')).toEqual([
      'get_release',
      { id: 'acme/web', tag_name: 'v1' },
    ]);
  });

  it('a boolean --flag takes the next value only when it is a boolean word', () => {
    expect(call('tree list acme/web --recursive no')).toEqual([
      'list_repository_tree',
      { id: 'acme/web', recursive: false },
    ]);
    expect(call('tree list --recursive acme/web')).toEqual([
      'list_repository_tree',
      { id: 'acme/web', recursive: true },
    ]);
  });

  it('a --key without a value, for a field that is not boolean, says how to give one', () => {
    expect(error('tree list acme/web --ref').message).toBe('--ref needs a value: --ref=<value>.');
  });

  it('reads booleans as true/false/yes/no, and numbers only where the field takes one', () => {
    expect(call('project list archived=yes simple=False id_after=10 search=42')).toEqual([
      'list_projects',
      { archived: true, simple: false, id_after: 10, search: '42' },
    ]);
    expect(call('release get acme/web 2024')).toEqual(['get_release', { id: 'acme/web', tag_name: '2024' }]);
    expect(call('project list min_access_level=30')).toEqual(['list_projects', { min_access_level: 30 }]);
  });

  it('keeps a project path a string and a numeric project id a number', () => {
    expect(call('release list id=acme/web')).toEqual(['list_releases', { id: 'acme/web' }]);
    expect(call('release list id=12')).toEqual(['list_releases', { id: 12 }]);
  });

  it('builds lists from a repeated key, a comma list, or JSON; a quoted value stays one item', () => {
    expect(call('merge-base get acme/web refs=main refs=feature/x')).toEqual([
      'get_merge_base',
      { id: 'acme/web', refs: ['main', 'feature/x'] },
    ]);
    expect(call('merge-base get acme/web refs=main,dev')).toEqual([
      'get_merge_base',
      { id: 'acme/web', refs: ['main', 'dev'] },
    ]);
    expect(call('merge-base get acme/web refs=\'["a,b", "c"]\'')).toEqual([
      'get_merge_base',
      { id: 'acme/web', refs: ['a,b', 'c'] },
    ]);
    expect(call('issue list acme/web labels="bug, ui" labels=p1 iids=1,#2', withIssues)).toEqual([
      'list_issues',
      { id: 'acme/web', labels: ['bug, ui', 'p1'], iids: [1, 2] },
    ]);
  });

  it('reads JSON for object lists and objects', () => {
    expect(call('pipeline create acme/web ref=main variables=\'[{"key":"DEPLOY","value":"1"}]\'')).toEqual([
      'create_pipeline',
      { id: 'acme/web', ref: 'main', variables: [{ key: 'DEPLOY', value: '1' }] },
    ]);
    expect(call('project list custom_attributes={"team":"infra"}')).toEqual([
      'list_projects',
      { custom_attributes: { team: 'infra' } },
    ]);
    expect(error('pipeline create acme/web ref=main variables=[{key}]').message).toMatch(
      /^variables: not valid JSON \(/,
    );
  });

  it('refuses a key given twice with different values', () => {
    expect(error('pipeline retry acme/web 42 pipeline_id=43').message).toBe(
      'Too many values: "42". pipeline retry takes <id> <pipeline_id>; pipeline_id is already given.',
    );
    expect(error('pipeline retry acme/web pipeline_id=42 pipeline_id=43').message).toBe('pipeline_id is given twice.');
    expect(error('pipeline retry https://h.test/a/b/-/pipelines/1 pipeline_id=2').message).toBe(
      'pipeline_id is given twice.',
    );
    expect(call('pipeline retry acme/web pipeline_id=42 pipeline_id=#42')).toEqual([
      'retry_pipeline',
      { id: 'acme/web', pipeline_id: 42 },
    ]);
  });
});

describe('quoted, multi-line and fenced values', () => {
  it('keeps spaces in quotes and newlines in values that span lines', () => {
    expect(call('commit comment create acme/web abc note="Looks good,\nship it" path=a.ts line=3')).toEqual([
      'create_commit_comment',
      { id: 'acme/web', sha: 'abc', note: 'Looks good,\nship it', path: 'a.ts', line: 3 },
    ]);
    expect(call('release update acme/web v1 name=\'Big "one"\'')).toEqual([
      'update_release',
      { id: 'acme/web', tag_name: 'v1', name: 'Big "one"' },
    ]);
  });

  it("unfences a ``` block as Slack users paste code, keeping the file's last newline", () => {
    const line =
      'file create acme/web config/app.yml branch=main commit_message="Add config" content=```yaml\n' +
      'name: web\nreplicas: 2\n```';
    expect(call(line)).toEqual([
      'create_file',
      {
        id: 'acme/web',
        file_path: 'config/app.yml',
        branch: 'main',
        commit_message: 'Add config',
        content: 'name: web\nreplicas: 2\n',
      },
    ]);
  });

  it('reports an unclosed quote instead of guessing', () => {
    expect(parse('release create acme/web tag_name=v1 description="half')).toEqual({
      kind: 'error',
      message: 'Unclosed " quote: close it with ".',
    });
  });
});

describe('#12 and !7', () => {
  it('strip the sigil for number fields', () => {
    expect(call('issue get acme/web #12', withIssues)).toEqual(['get_issue', { id: 'acme/web', issue_iid: 12 }]);
    expect(call('mr merge acme/web !7 squash=yes', withIssues)).toEqual([
      'merge_merge_request',
      { id: 'acme/web', merge_request_iid: 7, squash: true },
    ]);
    expect(call('pipeline get acme/web pipeline_id=#42')).toEqual([
      'get_pipeline',
      { id: 'acme/web', pipeline_id: 42 },
    ]);
  });

  it('keep the sigil in text fields', () => {
    expect(call('mr merge acme/web 7 merge_commit_message=#12', withIssues)).toEqual([
      'merge_merge_request',
      { id: 'acme/web', merge_request_iid: 7, merge_commit_message: '#12' },
    ]);
  });
});

describe('pasted links', () => {
  const url = 'https://code.example.com/acme/web';

  it('fill the project and what the page shows', () => {
    expect(call(`pipeline retry ${url}/-/pipelines/42`)).toEqual([
      'retry_pipeline',
      { id: 'acme/web', pipeline_id: 42 },
    ]);
    expect(call(`commit get ${url}/-/commit/9f8e7d6`)).toEqual(['get_commit', { id: 'acme/web', sha: '9f8e7d6' }]);
    expect(call(`file get ${url}/-/blob/main/src/app.ts`)).toEqual([
      'get_file',
      { id: 'acme/web', file_path: 'src/app.ts', ref: 'main' },
    ]);
    expect(call(`tree list ${url}/-/tree/v2/docs`)).toEqual([
      'list_repository_tree',
      { id: 'acme/web', ref: 'v2', path: 'docs' },
    ]);
    expect(call(`release get ${url}/-/releases/v1.2.0`)).toEqual([
      'get_release',
      { id: 'acme/web', tag_name: 'v1.2.0' },
    ]);
    expect(call(`issue get ${url}/-/issues/7`, withIssues)).toEqual(['get_issue', { id: 'acme/web', issue_iid: 7 }]);
    expect(call(`mr merge ${url}/-/merge_requests/3`, withIssues)).toEqual([
      'merge_merge_request',
      { id: 'acme/web', merge_request_iid: 3 },
    ]);
    expect(call('release list https://code.example.com/acme/platform/payments-api')).toEqual([
      'list_releases',
      { id: 'acme/platform/payments-api' },
    ]);
  });

  it('fill only the fields the operation has, and positional values fill the rest', () => {
    expect(call(`pipeline list ${url}/-/pipelines/42`)).toEqual(['list_pipelines', { id: 'acme/web' }]);
    expect(call(`pipeline retry ${url} 42`)).toEqual(['retry_pipeline', { id: 'acme/web', pipeline_id: 42 }]);
    expect(call(`commit list ${url}/-/tree/main/src`)).toEqual([
      'list_commits',
      { id: 'acme/web', ref_name: 'main', path: 'src' },
    ]);
    expect(call(`release list id=${url}`)).toEqual(['list_releases', { id: 'acme/web' }]);
  });

  it('refuse a link that names nothing the command takes, or another host than the configured service', () => {
    expect(error(`project list ${url}`).message).toBe(`${url} names nothing project list takes.`);
    expect(
      error('pipeline retry https://elsewhere.test/a/b/-/pipelines/1', { baseUrl: 'https://code.example.com' }).message,
    ).toBe('https://elsewhere.test/a/b/-/pipelines/1 is not a link to https://code.example.com.');
    expect(call(`pipeline retry ${url}/-/pipelines/1`, { baseUrl: 'https://code.example.com/' })).toEqual([
      'retry_pipeline',
      { id: 'acme/web', pipeline_id: 1 },
    ]);
  });
});

describe('the default project', () => {
  const defaults: ParseOptions = { defaultProject: 'acme/web' };

  it('fills id when it is left out, and the values typed fill the other path parameters', () => {
    expect(call('pipeline retry 42', defaults)).toEqual(['retry_pipeline', { id: 'acme/web', pipeline_id: 42 }]);
    expect(call('pipeline list status=failed', defaults)).toEqual([
      'list_pipelines',
      { id: 'acme/web', status: 'failed' },
    ]);
    expect(call('file raw src/app.ts ref=main', defaults)).toEqual([
      'get_file_raw',
      { id: 'acme/web', file_path: 'src/app.ts', ref: 'main' },
    ]);
    expect(call('issue get #5', { ...withIssues, ...defaults })).toEqual([
      'get_issue',
      { id: 'acme/web', issue_iid: 5 },
    ]);
    expect(call('release list', { defaultProject: '12' })).toEqual(['list_releases', { id: 12 }]);
  });

  it('gives way to a project typed, named or linked', () => {
    expect(call('pipeline retry acme/api 42', defaults)).toEqual([
      'retry_pipeline',
      { id: 'acme/api', pipeline_id: 42 },
    ]);
    expect(call('pipeline retry id=acme/api 42', defaults)).toEqual([
      'retry_pipeline',
      { id: 'acme/api', pipeline_id: 42 },
    ]);
    expect(call('pipeline retry https://h.test/acme/api/-/pipelines/9', defaults)).toEqual([
      'retry_pipeline',
      { id: 'acme/api', pipeline_id: 9 },
    ]);
  });

  it('is not given to operations outside a project', () => {
    expect(call('project list', defaults)).toEqual(['list_projects', {}]);
    expect(call('user me', defaults)).toEqual(['get_current_user', {}]);
  });

  it('is set with use, from a path or a link', () => {
    expect(parse('use acme/web')).toEqual({ kind: 'use', project: 'acme/web' });
    expect(parse('use https://code.example.com/acme/platform/payments-api/-/pipelines')).toEqual({
      kind: 'use',
      project: 'acme/platform/payments-api',
    });
    expect(parse('use')).toEqual({
      kind: 'error',
      message: 'use takes one project, e.g. use acme/web.',
      usage: 'use <project>',
    });
    expect(parse('use a b')).toMatchObject({ kind: 'error', usage: 'use <project>' });
    expect(parse('use https://elsewhere.test/a/b', { baseUrl: 'https://code.example.com' })).toEqual({
      kind: 'error',
      message: 'https://elsewhere.test/a/b is not a link to https://code.example.com.',
      usage: 'use <project>',
    });
  });
});

describe('meta commands', () => {
  it('are handed to the front end, with their arguments', () => {
    expect(parse('login')).toEqual({ kind: 'meta', name: 'login', args: [] });
    expect(parse('logout now')).toEqual({ kind: 'meta', name: 'logout', args: ['now'] });
    expect(parse('whoami')).toEqual({ kind: 'meta', name: 'whoami', args: [] });
  });

  it('triage names its project, typed, linked or by default', () => {
    expect(parse('triage acme/web')).toEqual({ kind: 'meta', name: 'triage', args: ['acme/web'], project: 'acme/web' });
    expect(parse('triage https://code.example.com/acme/api')).toEqual({
      kind: 'meta',
      name: 'triage',
      args: ['https://code.example.com/acme/api'],
      project: 'acme/api',
    });
    expect(parse('triage', { defaultProject: 'acme/web' })).toEqual({
      kind: 'meta',
      name: 'triage',
      args: [],
      project: 'acme/web',
    });
    expect(parse('triage')).toEqual({ kind: 'meta', name: 'triage', args: [] });
  });
});

describe('mistakes', () => {
  it('a mistyped command gets the nearest commands', () => {
    expect(error('pipline retry acme/web 42')).toEqual({
      kind: 'error',
      message: 'Unknown command "pipline retry". Did you mean: pipeline retry?',
      suggestions: ['pipeline retry'],
    });
    expect(error('pipelines list').suggestions).toEqual(['pipeline list']);
    expect(error('retry pipeline acme/web 42').suggestions).toEqual(['pipeline retry']);
    expect(error('commit coment list').suggestions).toEqual(['commit comment list']);
    expect(error('frobnicate now')).toEqual({
      kind: 'error',
      message: 'Unknown command "frobnicate now". Type help to see the commands.',
      suggestions: [],
    });
  });

  it('a noun alone lists its commands', () => {
    const releases = commandsOf('release');
    expect(releases).toEqual(
      expect.arrayContaining(['release list', 'release get', 'release create', 'release update']),
    );
    expect(error('release')).toEqual({
      kind: 'error',
      message: `"release" needs one more word: ${releases.join(', ')}.`,
      suggestions: releases,
    });
    expect(commandsOf('pipeline')).toEqual(
      expect.arrayContaining(['pipeline list', 'pipeline retry', 'pipeline cancel']),
    );
    expect(error('pipeline frobnicate').suggestions).toEqual(commandsOf('pipeline'));
  });

  it('an unknown key gets the nearest field name and the usage', () => {
    expect(error('pipeline list acme/web stauts=failed')).toEqual({
      kind: 'error',
      message: 'pipeline list has no parameter "stauts". Did you mean status?',
      usage: 'pipeline list <id> [key=value …]',
      suggestions: ['status'],
    });
    expect(error('pipeline list acme/web zzz=1').message).toBe('pipeline list has no parameter "zzz".');
  });

  it("invalid input names the field, in the words of the operation's own schema", () => {
    expect(error('pipeline retry acme/web abc')).toEqual({
      kind: 'error',
      message: 'pipeline retry: pipeline_id: Invalid input: expected number, received string.',
      usage: 'pipeline retry <id> <pipeline_id> [key=value …]',
    });
    expect(error('pipeline retry acme/web').message).toBe('pipeline retry: pipeline_id is required.');
    expect(error('release create acme/web').message).toBe(
      'release create: tag_name is required; description is required.',
    );
    expect(error('pipeline list acme/web status=broken').message).toMatch(
      /^pipeline list: status: Invalid option: expected one of/,
    );
  });

  it('a line that does not start with a command says so', () => {
    expect(parse('"pipeline" retry')).toEqual({
      kind: 'error',
      message: 'Start with a command, e.g. pipeline list. Type help to see them all.',
    });
  });
});

describe('anything typed', () => {
  // 3000 lines parsed and completed: CPU work alone (10 s at load 16 on 2 cores, with the files that share them), so
  // its bound is the work's, not the default 20 s.
  it('gives a result (and completions), never a throw, and words like "constructor" are only text', {
    timeout: 60_000,
  }, () => {
    expect(error('tree list acme/web recursive=constructor').message).toBe(
      'tree list: recursive: Invalid input: expected boolean, received string.',
    );
    const pieces = [
      'pipeline',
      'retry',
      'help',
      'use',
      '"',
      "'",
      '```',
      '=',
      '--',
      '—',
      'id=',
      '#',
      '!7',
      '\\',
      '\n',
      ' ',
      '[',
      '{',
      'https://x.test/a/-/pipelines/1',
      'http://[bad',
      'https://x.test/%E0%A4%A',
      '\ud800',
      'constructor',
      '__proto__=1',
      '42',
      'acme/web',
    ];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 3000; n++) {
      const line = Array.from(
        { length: 1 + Math.floor(random() * 8) },
        () => pieces[Math.floor(random() * pieces.length)],
      ).join(random() < 0.5 ? ' ' : '');
      expect(() => parse(line, withIssues), line).not.toThrow();
      expect(() => complete(line, withIssues), line).not.toThrow();
      expect(['call', 'help', 'use', 'meta', 'error']).toContain(parse(line, withIssues).kind);
    }
  });
});

describe('an add or create takes the new item positionally, as its remove or delete and the help do', () => {
  const call = (line: string, options: ParseOptions = {}) => {
    const parsed = parse(line, options);
    if (parsed.kind !== 'call') throw new Error(`${line}: ${JSON.stringify(parsed)}`);
    return { name: parsed.operation.name, input: parsed.input };
  };

  it('reads `project member add acme/web @erin` as remove reads `project member remove acme/web @erin`', () => {
    expect(call('project member add acme/web @erin access_level=developer')).toEqual({
      name: 'add_project_member',
      input: { id: 'acme/web', user_id: '@erin', access_level: 30 },
    });
    expect(call('project member remove acme/web @erin').input).toEqual({ id: 'acme/web', user_id: '@erin' });
    // With a default project, the project may be left out, as for remove.
    expect(call('project member add @erin access_level=developer', { defaultProject: 'acme/web' }).input).toEqual({
      id: 'acme/web',
      user_id: '@erin',
      access_level: 30,
    });
  });

  it('reads `branch create acme/web experiment` as `branch delete acme/web experiment`', () => {
    expect(call('branch create acme/web experiment ref=main')).toEqual({
      name: 'create_branch',
      input: { id: 'acme/web', branch: 'experiment', ref: 'main' },
    });
    expect(call('branch create acme/web branch=experiment ref=main').input).toEqual({
      id: 'acme/web',
      branch: 'experiment',
      ref: 'main',
    });
  });

  it('shows the same positional form in the help, and its example parses', () => {
    for (const [command, usage] of [
      ['project member add', 'project member add <id> <user_id> access_level=<value>'],
      ['branch create', 'branch create <id> <branch> ref=<value>'],
    ]) {
      const help = parse(`help ${command}`);
      if (help.kind !== 'help') throw new Error(command);
      expect(help.text).toContain(`Usage: ${usage} [key=value …]`);
      const example = help.text.split('Examples:\n')[1].split('\n')[0].trim();
      expect(parse(example).kind, example).toBe('call');
    }
  });

  it('still refuses a value too many, naming what the command takes', () => {
    const parsed = parse('branch create acme/web experiment main');
    expect(parsed).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('branch create takes <id> <branch>'),
    });
  });
});
