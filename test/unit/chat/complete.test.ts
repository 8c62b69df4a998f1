// Tab completion: command words, then the command's parameters as key=, then enum and boolean values.
import { describe, expect, it } from 'vitest';
import { complete, usernameBeingTyped } from '../../../src/chat/complete.js';
import { AREAS, NOUNS, startingWith, wordsAfter } from './registry-words.js';

const META = ['use', 'triage', 'login', 'logout', 'whoami', 'watch', 'unwatch', 'watching'];

describe('complete', () => {
  it('offers first words: help, the nouns and the meta commands', () => {
    expect(NOUNS).toEqual(
      expect.arrayContaining(['file', 'tree', 'commit', 'pipeline', 'release', 'project', 'user', 'group']),
    );
    expect(complete('')).toEqual(['help', ...NOUNS, ...META]);
    expect(complete('pi')).toEqual(startingWith(NOUNS, 'pi'));
    expect(complete('pi')).toContain('pipeline');
    expect(complete('Re')).toEqual(startingWith(NOUNS, 're'));
    expect(complete('Re')).toEqual(expect.arrayContaining(['refs', 'release']));
  });

  it('offers the next command word', () => {
    expect(wordsAfter('pipeline')).toEqual(expect.arrayContaining(['list', 'get', 'retry', 'cancel']));
    expect(complete('pipeline ')).toEqual(wordsAfter('pipeline'));
    expect(complete('pipeline re')).toEqual(startingWith(wordsAfter('pipeline'), 're'));
    expect(complete('pipeline re')).toContain('retry');
    expect(wordsAfter('commit comment')).toEqual(expect.arrayContaining(['list', 'create']));
    expect(complete('commit comment ')).toEqual(wordsAfter('commit comment'));
    expect(complete('help rel')).toEqual(startingWith([...NOUNS, ...AREAS], 'rel'));
    expect(complete('help rel')).toEqual(expect.arrayContaining(['release', 'releases']));
  });

  it('offers parameters once the command is typed, and a longer command where one exists', () => {
    expect(complete('pipeline retry ')).toEqual(['id=', 'pipeline_id=']);
    expect(complete('file blame ')).toEqual(['metadata', 'id=', 'file_path=', 'ref=']);
    expect(complete('pipeline list acme/web st')).toEqual(['status=']);
    expect(complete('pipeline list acme/web --s')).toEqual(['--scope=', '--status=', '--sha=', '--sort=']);
  });

  it('leaves out parameters already given', () => {
    expect(complete('release get id=acme/web ')).toEqual(['tag_name=']);
  });

  it('offers enum and boolean values after key=', () => {
    expect(complete('pipeline list acme/web status=')).toEqual([
      'status=running',
      'status=pending',
      'status=success',
      'status=failed',
      'status=canceled',
      'status=skipped',
    ]);
    expect(complete('pipeline list acme/web status=f')).toEqual(['status=failed']);
    expect(complete('tree list acme/web recursive=')).toEqual(['recursive=true', 'recursive=false']);
  });

  it('offers nothing for an unknown command or inside an open quote', () => {
    expect(complete('frob ')).toEqual([]);
    expect(complete('release create acme/web description="unfinished ')).toEqual([]);
  });
});

describe('usernameBeingTyped', () => {
  const at = (line: string, name = 'erin') => {
    const typed = usernameBeingTyped(line);
    return typed && { prefix: typed.prefix, candidate: typed.candidate(name) };
  };

  it("sees a username in @… anywhere and in a person field's value, with or without @", () => {
    expect(at('project member remove acme/web @er')).toEqual({ prefix: 'er', candidate: '@erin' });
    expect(at('project member add acme/web user_id=er')).toEqual({ prefix: 'er', candidate: 'user_id=@erin' });
    expect(at('project member add acme/web --user-id=@e')).toEqual({ prefix: 'e', candidate: '--user-id=@erin' });
    expect(at('issue list acme/web assignee_id=@')).toEqual({ prefix: '', candidate: 'assignee_id=@erin' });
  });

  it('sees none in an id, another field, a quote or a finished word', () => {
    expect(at('project member add acme/web user_id=6')).toBeUndefined();
    expect(at('project member add acme/web access_level=3')).toBeUndefined();
    expect(at('issue create acme/web title="@er')).toBeUndefined();
    expect(at('project member remove acme/web @erin ')).toBeUndefined();
  });
});
