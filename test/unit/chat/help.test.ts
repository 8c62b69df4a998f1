// Help generated from the registry: usage lines, command help, area and top-level help, and examples that parse.
import { describe, expect, it } from 'vitest';
import { parse } from '../../../src/chat/grammar.js';
import { commandHelp, examples, formatValue, helpTopic, usageLine } from '../../../src/chat/help.js';
import { findOperation, operations } from '../../../src/operations/index.js';
import { commandsOf, operationsIn, wordsAfter } from './registry-words.js';

const op = (name: string) => findOperation(name)!;

function helpText(line: string, options = {}): string {
  const result = parse(line, options);
  if (result.kind !== 'help') throw new Error(`expected help, got ${JSON.stringify(result)}`);
  return result.text;
}

describe('usageLine', () => {
  it('names the path values in route order, then the required keys', () => {
    expect(usageLine(op('retry_pipeline'))).toBe('pipeline retry <id> <pipeline_id> [key=value …]');
    expect(usageLine(op('retry_pipeline'), { prefix: '/forge ' })).toBe(
      '/forge pipeline retry <id> <pipeline_id> [key=value …]',
    );
    expect(usageLine(op('create_release'))).toBe('release create <id> <tag_name> description=<value> [key=value …]');
    expect(usageLine(op('get_current_user'))).toBe('user me [key=value …]');
    expect(usageLine(op('download_archive'))).toBe('archive download <id> [<format>] [key=value …]');
  });
});

describe('command help', () => {
  it('has the usage line, the description, every parameter and examples', () => {
    expect(commandHelp(op('retry_pipeline'), { prefix: '/forge ' })).toBe(
      [
        'Usage: /forge pipeline retry <id> <pipeline_id> [key=value …]',
        "Retry pipeline: Run a pipeline's failed or canceled jobs again, e.g. after a flaky failure; requeued_jobs names the jobs it re-queued.",
        '',
        'Parameters:',
        '  id           integer or string, required — Project ID or full path.',
        '  pipeline_id  integer, required',
        '',
        'Examples:',
        '  /forge pipeline retry acme/web 42',
        '  /forge pipeline retry https://code.example.com/acme/web/-/pipelines/42',
      ].join('\n'),
    );
  });

  it('says when a command asks for approval, and lists enum values and list types', () => {
    const text = commandHelp(op('delete_pipeline'));
    expect(text.split('\n')[2]).toBe('Asks you to approve it before it runs.');
    // A write that asks on every input says so too; one that asks for some inputs says it may.
    expect(commandHelp(op('rollback_environment')).split('\n')[2]).toBe('Asks you to approve it before it runs.');
    expect(commandHelp(op('create_commit')).split('\n')[2]).toBe('May ask you to approve it, depending on the input.');
    // The environment is typed as a value, as people name it.
    expect(commandHelp(op('rollback_environment'))).toContain(
      'Usage: environment rollback <id> <environment> [key=value …]',
    );
    expect(commandHelp(op('rollback_environment'))).toMatch(
      /Examples:\n {2}environment rollback acme\/web production$/,
    );
    expect(commandHelp(op('list_pipelines'))).toContain(
      '\n  status          one of running, pending, success, failed, canceled, skipped, optional\n',
    );
    expect(commandHelp(op('list_pipelines'))).toContain(
      '\n  order_by        one of id, status, ref, updated_at, user_id, optional — Default id.\n',
    );
    expect(commandHelp(op('get_merge_base'))).toContain('\n  refs  list of string, required — ');
  });

  it('is reached by help <words>, help <tool name> and --help', () => {
    const expected = commandHelp(op('retry_pipeline'));
    expect(helpText('help pipeline retry')).toBe(expected);
    expect(helpText('help retry_pipeline')).toBe(expected);
    expect(helpText('pipeline retry --help')).toBe(expected);
    expect(helpText('pipeline retry acme/web -h')).toBe(expected);
  });

  it('puts the configured service in example links', () => {
    expect(examples(op('get_file'), { baseUrl: 'https://git.acme.test/' })).toEqual([
      'file get acme/web src/app.ts ref=main',
      'file get https://git.acme.test/acme/web/-/blob/main/src/app.ts',
    ]);
  });
});

describe('examples', () => {
  it('show the required values, then a link or an optional filter', () => {
    expect(examples(op('create_release'))).toEqual([
      'release create acme/web v1.2.0 description="First stable release"',
    ]);
    expect(examples(op('list_pipelines'))).toEqual(['pipeline list acme/web', 'pipeline list acme/web scope=running']);
    expect(examples(op('list_projects'))).toEqual(['project list', 'project list search=payments']);
    expect(examples(op('download_archive'))).toEqual([
      'archive download acme/web',
      'archive download acme/web sha=a1b2c3d',
    ]);
    expect(examples(op('create_file'))[1]).toBe(
      'file create https://code.example.com/acme/web/-/blob/main/src/app.ts commit_message="Fix typo" content=Hello',
    );
  });

  it('of every operation in the registry parse back to that operation', () => {
    for (const operation of operations) {
      for (const line of examples(operation, { prefix: '' })) {
        const result = parse(line);
        expect(result.kind === 'call' ? result.operation.name : `${line} → ${JSON.stringify(result)}`).toBe(
          operation.name,
        );
      }
    }
  });

  it('write values so the grammar reads them back', () => {
    expect(formatValue('main')).toBe('main');
    expect(formatValue('Fix typo')).toBe('"Fix typo"');
    expect(formatValue(['a', 'b'])).toBe('a,b');
    expect(formatValue([{ key: 'A' }])).toBe('\'[{"key":"A"}]\'');
    expect(formatValue({ note: "it's" })).toBe('"{\\"note\\":\\"it\'s\\"}"');
  });
});

describe('area and top-level help', () => {
  const longestArea = Math.max(...operations.map((op) => op.area.length));

  it("lists an area's commands with their titles", () => {
    const releases = operationsIn('releases');
    expect(releases.map((op) => `${op.chat}: ${op.title}`)).toEqual(
      expect.arrayContaining([
        'release list: List releases',
        'release get: Get release',
        'release create: Create release',
        'release update: Update release',
      ]),
    );
    const width = Math.max(...releases.map((op) => op.chat.length));
    expect(helpText('help releases')).toBe(
      [
        'Releases:',
        ...releases.map((op) => `  ${op.chat.padEnd(width)}  ${op.title}`),
        '',
        `help <command> shows its parameters and examples, e.g. help ${releases[0].chat}`,
      ].join('\n'),
    );
    expect(helpText('help repository files')).toBe(helpTopic(['repository_files'], operations));
    expect(helpText('help release').split('\n')[0]).toBe('release commands:');
  });

  it('lists the areas with their commands, examples and the meta commands', () => {
    const text = helpText('help', { prefix: '/forge ' });
    expect(text.split('\n')[0]).toBe('Usage: /forge <command> [values] [key=value …]');
    // The column is as wide as the longest area name, which grows with the registry.
    // Each area's row groups its commands by noun: "pipeline list, get, …", "tree list; blob get, raw; …".
    expect(wordsAfter('pipeline')).toEqual(expect.arrayContaining(['list', 'get', 'retry']));
    expect(text).toContain(
      `\n  pipelines ${' '.repeat(longestArea - 'pipelines'.length)} pipeline ${wordsAfter('pipeline').join(', ')}\n`,
    );
    const repository = operationsIn('repository').map((op) => op.chat.split(' '));
    const repositoryNouns = [...new Set(repository.map(([noun]) => noun))];
    expect(repositoryNouns).toEqual(expect.arrayContaining(['tree', 'blob', 'archive', 'merge-base']));
    expect(text).toContain(
      `\n  repository ${' '.repeat(longestArea - 'repository'.length)} ${repositoryNouns
        .map(
          (noun) =>
            `${noun} ${repository
              .filter(([first]) => first === noun)
              .map((words) => words.slice(1).join(' '))
              .join(', ')}`,
        )
        .join('; ')}\n`,
    );
    expect(text).toContain(
      '\nExamples:\n  /forge pipeline list acme/web scope=running\n  /forge pipeline retry https://code.example.com/acme/web/-/pipelines/42\n',
    );
    expect(text).toContain(
      `\n  /forge use <project> ${' '.repeat('watch <project> [branch]'.length - 'use <project>'.length)} Set the default project of this conversation.\n`,
    );
    expect(text).toContain(
      '\n  /forge watch <project> [branch]  Follow the default branch: in Slack, one message per red episode in this channel, updated until green;',
    );
    expect(text).toContain('\n  /forge unwatch <project> ');
    expect(text).toContain('\n  /forge watching ');
    expect(parse('')).toEqual({ kind: 'help', text: helpText('help') });
  });

  it('explains a meta command, and suggests for an unknown topic', () => {
    expect(helpText('help use')).toBe('use <project>\nSet the default project of this conversation.');
    expect(parse('help pipline retry')).toEqual({
      kind: 'error',
      message: 'No help on "pipline retry". Did you mean: pipeline retry?',
      suggestions: ['pipeline retry'],
    });
    expect(commandsOf('pipeline')).toEqual(expect.arrayContaining(['pipeline list', 'pipeline retry']));
    expect(parse('help pipelnes')).toMatchObject({
      kind: 'error',
      suggestions: ['pipelines', ...commandsOf('pipeline')],
    });
  });
});
