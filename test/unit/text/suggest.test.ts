// "Did you mean": edit distance with swaps, and how far a suggestion may reach.
import { describe, expect, it } from 'vitest';
import { closest, editDistance } from '../../../src/text/suggest.js';

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and neighbour swaps as one edit each', () => {
    expect(editDistance('port', 'port')).toBe(0);
    expect(editDistance('prot', 'port')).toBe(1);
    expect(editDistance('pipline', 'pipeline')).toBe(1);
    expect(editDistance('serve', 'server')).toBe(1);
    expect(editDistance('abc', 'xyz')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });
});

describe('closest', () => {
  it('suggests the nearest candidates, nearest first, within a third of the word', () => {
    expect(closest('prot', ['port', 'host', 'env-file'])).toEqual(['port']);
    expect(closest('pipelnie', ['pipeline', 'pipelines', 'release'])).toEqual(['pipeline', 'pipelines']);
    expect(closest('x', ['port', 'host'])).toEqual([]);
    expect(closest('SERV', ['serve', 'mcp'])).toEqual(['serve']);
  });
});
