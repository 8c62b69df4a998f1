// The README's generated sections must match the registry and config schema (run `npm run docs` to refresh).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { operations } from '../../src/operations/index.js';
import {
  ACCOUNTS_BEGIN,
  ACCOUNTS_END,
  DECISIONS_BEGIN,
  DECISIONS_END,
  renderHumanDecisions,
  CONFIG_BEGIN,
  CONFIG_END,
  REFERENCE_BEGIN,
  REFERENCE_END,
  firstSentence,
  renderConfiguration,
  renderReference,
  renderSandboxAccounts,
  replaceSection,
} from '../../src/docs/reference.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('shows the two commands a newcomer needs', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm test');
  });

  it('has an up-to-date command and tool reference (npm run docs)', () => {
    expect(replaceSection(readme, REFERENCE_BEGIN, REFERENCE_END, renderReference(operations))).toBe(readme);
    for (const op of operations) expect(readme).toContain(`\`${op.name}\``);
  });

  it('has an up-to-date configuration table (npm run docs)', () => {
    expect(replaceSection(readme, CONFIG_BEGIN, CONFIG_END, renderConfiguration())).toBe(readme);
    expect(readme).toContain('`CODEHOST_URL`');
  });

  it('generates the "asks a human" table from the registry\'s decisions: every destructive or conditional call once', () => {
    expect(replaceSection(readme, DECISIONS_BEGIN, DECISIONS_END, renderHumanDecisions(operations))).toBe(readme);
    const table = renderHumanDecisions(operations);
    for (const op of operations.filter((o) => o.effect === 'destructive' || o.needsApproval)) {
      expect(table.split(`\`${op.name}\``), op.name).toHaveLength(2);
    }
    expect(table).not.toContain('`get_pipeline`');
  });

  it('lists the sandbox demo accounts and tokens as the sandbox seeds them (npm run docs)', () => {
    expect(replaceSection(readme, ACCOUNTS_BEGIN, ACCOUNTS_END, renderSandboxAccounts())).toBe(readme);
  });
});

describe('firstSentence', () => {
  it('does not end a sentence at "e.g.", inside parentheses or quotes', () => {
    expect(firstSentence('List commits of a ref (e.g. "main", "v1.0..main"), newest first. More.')).toBe(
      'List commits of a ref (e.g. "main", "v1.0..main"), newest first.',
    );
    expect(firstSentence('Find the common ancestor (e.g. of two branches). Then more.')).toBe(
      'Find the common ancestor (e.g. of two branches).',
    );
    expect(firstSentence('Refs, e.g. main. Rest.')).toBe('Refs, e.g. main.');
    expect(firstSentence('No period at all')).toBe('No period at all');
  });

  it('leaves no row of the reference cut off mid-sentence', () => {
    for (const op of operations)
      expect(firstSentence(op.description), op.name).not.toMatch(/\((e\.g|i\.e)\.?$|e\.g\.$/);
  });
});
