// Tab completion: command words, then the command's parameters as key=, then enum and boolean values.
import { describe, expect, it } from 'vitest';
import { complete } from '../../../src/chat/complete.js';

describe('complete', () => {
  it('offers first words: help, the nouns and the meta commands', () => {
    expect(complete('')).toEqual(['help', 'file', 'tree', 'blob', 'archive', 'refs', 'contributor', 'merge-base', 'commit',
      'pipeline', 'release', 'project', 'user', 'issue', 'mr', 'epic', 'notification', 'integration', 'snippet', 'package', 'key', 'scim', 'group', 'broadcast', 'variable', 'audit', 'settings', 'job', 'branch', 'tag', 'use', 'triage', 'login', 'logout', 'whoami']);
    expect(complete('pi')).toEqual(['pipeline']);
    expect(complete('Re')).toEqual(['refs', 'release']);
  });

  it('offers the next command word', () => {
    expect(complete('pipeline ')).toEqual(['list', 'get', 'variables', 'create', 'retry', 'cancel', 'delete', 'wait']);
    expect(complete('pipeline re')).toEqual(['retry']);
    expect(complete('commit comment ')).toEqual(['list', 'create']);
    expect(complete('help rel')).toEqual(['release', 'releases']);
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
    expect(complete('pipeline list acme/web status=')).toEqual(
      ['status=running', 'status=pending', 'status=success', 'status=failed', 'status=canceled', 'status=skipped']);
    expect(complete('pipeline list acme/web status=f')).toEqual(['status=failed']);
    expect(complete('tree list acme/web recursive=')).toEqual(['recursive=true', 'recursive=false']);
  });

  it('offers nothing for an unknown command or inside an open quote', () => {
    expect(complete('frob ')).toEqual([]);
    expect(complete('release create acme/web description="unfinished ')).toEqual([]);
  });
});
