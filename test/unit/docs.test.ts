// The docs' generated sections must match the registry and config schema (run `npm run docs` to refresh).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { operations } from '../../src/operations/index.js';
import {
  ACCOUNTS_BEGIN,
  CONFIGURATION_FILE,
  DECISIONS_BEGIN,
  DECISIONS_END,
  REFERENCE_BEGIN,
  REFERENCE_FILE,
  generatedSections,
  renderHumanDecisions,
  firstSentence,
  replaceSection,
  TOOL_INDEX_BEGIN,
} from '../../src/docs/reference.js';

const fromRoot = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
const readme = fromRoot('README.md');
const reference = fromRoot(REFERENCE_FILE);
const configuration = fromRoot(CONFIGURATION_FILE);

describe('README', () => {
  it('shows the two commands a newcomer needs', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm test');
  });

  it('holds one generated section, the tool index naming every operation; the rest live in docs/', () => {
    expect(readme.match(/BEGIN GENERATED/g)).toEqual(['BEGIN GENERATED']);
    expect(readme).toContain(TOOL_INDEX_BEGIN);
    for (const op of operations) expect(readme).toContain(`\`${op.name}\``);
  });
});

describe('generated sections (npm run docs)', () => {
  it.each(generatedSections(operations).map((section) => [section.file, section.begin, section] as const))(
    '%s is up to date: %s',
    (file, _begin, section) => {
      const text = fromRoot(file);
      expect(replaceSection(text, section.begin, section.end, section.body)).toBe(text);
    },
  );

  it('puts the command and tool reference and the human decisions in docs/reference.md, every operation named', () => {
    expect(reference).toContain(REFERENCE_BEGIN);
    expect(reference).toContain(DECISIONS_BEGIN);
    for (const op of operations) expect(reference).toContain(`\`${op.name}\``);
  });

  it('puts the configuration table and the sandbox accounts in docs/configuration.md', () => {
    expect(configuration).toContain('`CODEHOST_URL`');
    expect(configuration).toContain(ACCOUNTS_BEGIN);
  });

  it('generates the "asks a human" table from the registry\'s decisions: every destructive or conditional call once', () => {
    expect(reference.slice(reference.indexOf(DECISIONS_BEGIN), reference.indexOf(DECISIONS_END))).toContain(
      '| asks a human |',
    );
    const table = renderHumanDecisions(operations);
    for (const op of operations.filter((o) => o.effect === 'destructive' || o.needsApproval)) {
      expect(table.split(`\`${op.name}\``), op.name).toHaveLength(2);
    }
    expect(table).not.toContain('`get_pipeline`');
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
