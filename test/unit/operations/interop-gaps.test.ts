// The interop suites' "reached" rule (interopGaps): an operation beyond the spec is driven or named as not yet driven
// in its area, and a named one that is driven, or inside the spec, fails too.
import { describe, expect, it } from 'vitest';
import { defineArea } from '../../../src/operations/engine/define.js';
import { findOperation } from '../../../src/operations/index.js';
import { interopGaps } from '../../contract/harness.js';

const getTag = findOperation('get_tag')!;
const listTags = findOperation('list_tags')!;
const ops = [getTag, listTags];
const tagsRead = { method: 'GET', path: '/projects/1/repository/tags/v1', status: 200 };

function tagsArea(notYet: string[]) {
  return [defineArea({ name: 'tags', operations: ops, interop: { notYetDriven: { gitbeaker: notYet } } })];
}

describe('interopGaps', () => {
  it('accepts an operation that is driven, or named as not yet driven', () => {
    expect(interopGaps(tagsArea(['list_tags']), 'gitbeaker', ops, [tagsRead])).toEqual([]);
  });

  it('names an operation neither driven nor named, and a named one that is driven', () => {
    expect(interopGaps(tagsArea(['get_tag']), 'gitbeaker', ops, [tagsRead])).toEqual([
      "list_tags (GET /projects/:id/repository/tags) was never answered with success: drive it, or name it in its area's interop.notYetDriven.gitbeaker",
      "get_tag is named in its area's interop.notYetDriven.gitbeaker but was answered with success: take it off the list",
    ]);
  });

  it("keeps one client's list to that client", () => {
    expect(interopGaps(tagsArea(['list_tags']), 'pythonGitlab', ops, [tagsRead])).toEqual([
      "list_tags (GET /projects/:id/repository/tags) was never answered with success: drive it, or name it in its area's interop.notYetDriven.pythonGitlab",
    ]);
  });

  it('refuses to name an operation outside the area', () => {
    expect(() =>
      defineArea({ name: 'tags', operations: ops, interop: { notYetDriven: { gitbeaker: ['list_pipelines'] } } }),
    ).toThrow('area tags: interop names list_pipelines, not an operation of the area');
  });
});
