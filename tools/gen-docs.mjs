// Rewrites the generated sections of README.md from the built registry and config schema: node tools/gen-docs.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { operations } = await import(`${root}dist/operations/index.js`);
const docs = await import(`${root}dist/docs/reference.js`);
const path = `${root}README.md`;
let readme = readFileSync(path, 'utf8');
readme = docs.replaceSection(readme, docs.REFERENCE_BEGIN, docs.REFERENCE_END, docs.renderReference(operations));
readme = docs.replaceSection(readme, docs.DECISIONS_BEGIN, docs.DECISIONS_END, docs.renderHumanDecisions(operations));
readme = docs.replaceSection(readme, docs.CONFIG_BEGIN, docs.CONFIG_END, docs.renderConfiguration());
readme = docs.replaceSection(readme, docs.ACCOUNTS_BEGIN, docs.ACCOUNTS_END, docs.renderSandboxAccounts());
writeFileSync(path, readme);
console.log(`README.md: ${operations.length} operations documented`);
