// Write outcomes in words, derived from the registry: what happened to what, never a bare "done".
import { describe, expect, it } from 'vitest';
import { findOperation, operations } from '../../../src/operations/index.js';
import { outcomeLine, outcomeSentence } from '../../../src/operations/engine/outcome.js';
import { emptyTargets } from '../../../src/operations/engine/people.js';

const op = (name: string) => findOperation(name)!;
const erin = { ...emptyTargets(), people: { user_id: { id: 6, username: 'erin', name: 'Erin Walsh' } } };

describe('outcomeSentence', () => {
  it('names the person and the project of a member change', () => {
    expect(outcomeSentence(op('remove_project_member'), { id: 'acme/web', user_id: 6 }, null, erin)?.text).toBe(
      'Removed @erin from acme/web',
    );
    expect(
      outcomeSentence(op('add_group_member'), { id: 'acme', user_id: 6, access_level: 30 }, { access_level: 30 }, erin)
        ?.text,
    ).toBe('Added @erin to acme as developer');
    expect(outcomeSentence(op('remove_project_member'), { id: 3, user_id: 6 }, null)?.text).toBe(
      'Removed user 6 from project 3',
    );
  });

  it('says the level a member had, read before the write: what a removal took, what a change changed', () => {
    const wasDeveloper = { ...erin, levels: { user_id: 30 } };
    expect(outcomeSentence(op('remove_project_member'), { id: 'acme/web', user_id: 6 }, null, wasDeveloper)?.text).toBe(
      'Removed @erin from acme/web (was developer)',
    );
    expect(
      outcomeSentence(
        op('update_group_member'),
        { id: 'acme', user_id: 6, access_level: 40 },
        { access_level: 40 },
        wasDeveloper,
      )?.text,
    ).toBe('Changed @erin in acme from developer to maintainer');
  });

  it('says when a merge set to wait for its pipeline will merge, and what a merge made', () => {
    const input = { id: 'acme/web', merge_request_iid: 6, merge_when_pipeline_succeeds: true };
    const waiting = { iid: 6, state: 'opened', merge_when_pipeline_succeeds: true, target_branch: 'main' };
    expect(outcomeSentence(op('merge_merge_request'), input, { ...waiting, head_pipeline: { id: 23 } })?.text).toBe(
      'Merge request !6 will merge when pipeline #23 passes (into main of acme/web)',
    );
    expect(outcomeSentence(op('merge_merge_request'), input, waiting)?.text).toBe(
      'Merge request !6 will merge when its pipeline passes (into main of acme/web)',
    );
    expect(
      outcomeSentence(
        op('merge_merge_request'),
        { id: 'acme/web', merge_request_iid: 6 },
        { iid: 6, state: 'merged', target_branch: 'main', merge_commit_sha: '2fa70043aa11' },
      )?.text,
    ).toBe('Merged !6 into main of acme/web as 2fa70043');
  });

  it('says which tag of which project a release is, from which commit, with its link', () => {
    const outcome = outcomeSentence(
      op('create_release'),
      { id: 'acme/web', tag_name: 'v1.3' },
      {
        tag_name: 'v1.3',
        commit: { id: '54b5d197aa0011' },
        _links: { self: 'https://code.example.com/acme/web/-/releases/v1.3' },
      },
    );
    expect(outcomeLine(outcome!)).toBe(
      'Released v1.3 of acme/web from 54b5d197 — https://code.example.com/acme/web/-/releases/v1.3',
    );
  });

  it('gives a committed file its commit and link', () => {
    const outcome = outcomeSentence(
      op('create_file'),
      { id: 'acme/web', file_path: 'notes.txt', branch: 'main' },
      {
        file_path: 'notes.txt',
        branch: 'main',
        commit: { id: 'abcdef0123456789', short_id: 'abcdef01', web_url: 'https://x/c/abcdef01' },
      },
    );
    expect(outcomeLine(outcome!)).toBe(
      'Created notes.txt on main of acme/web in commit abcdef01 — https://x/c/abcdef01',
    );
  });

  it('never lets a write say only "done": every write names a target', () => {
    for (const write of operations.filter((o) => o.effect !== 'read')) {
      const input = Object.fromEntries(write.pathParams.map((p) => [p, p === 'id' ? 'acme/web' : 'x']));
      const text = outcomeSentence(write, input, { id: 5, name: 'x' })!.text;
      expect(text, write.name).not.toMatch(/done$/);
      expect(text.length, write.name).toBeGreaterThan(write.title.length);
    }
  });

  it('is undefined for a read', () => {
    expect(outcomeSentence(op('get_pipeline'), { id: 'acme/web', pipeline_id: 1 }, {})).toBeUndefined();
  });
});

describe('merge requests are !iid in every write outcome, issues #iid', () => {
  const mr = { iid: 6, id: 406, title: 'Dark mode', source_branch: 'feature/dark-mode', target_branch: 'main' };
  it('names a created merge request !6 and a created issue #6', () => {
    expect(outcomeSentence(op('create_merge_request'), { id: 'acme/web' }, mr)?.text).toBe(
      'Created merge request !6 "Dark mode" in acme/web',
    );
    expect(outcomeSentence(op('create_issue'), { id: 'acme/web' }, { iid: 6, id: 77, title: 'Bug' })?.text).toBe(
      'Created issue #6 "Bug" in acme/web',
    );
  });

  it('names the merge request of a change by !iid, never "merge request #"', () => {
    for (const write of operations.filter((o) => o.effect !== 'read' && o.pathParams.includes('merge_request_iid'))) {
      if (write.name === 'merge_merge_request') continue; // its answer is being reworked elsewhere
      const input = { id: 'acme/web', merge_request_iid: 6 };
      const text = outcomeSentence(write, input, { ...mr, id: 9 })?.text ?? '';
      expect(text, write.name).toContain('!6');
      expect(text, write.name).not.toMatch(/merge request #|#6/);
    }
  });
});
