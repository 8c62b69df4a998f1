// Rewrites the generated sections in docs/ from the built registry and config schema: node tools/gen-docs.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { operations } = await import(`${root}dist/operations/index.js`);
const docs = await import(`${root}dist/docs/reference.js`);
const sections = docs.generatedSections(operations);
for (const file of new Set(sections.map((section) => section.file))) {
  let text = readFileSync(`${root}${file}`, 'utf8');
  for (const { begin, end, body } of sections.filter((section) => section.file === file)) {
    text = docs.replaceSection(text, begin, end, body);
  }
  writeFileSync(`${root}${file}`, text);
  console.log(`${file}: generated sections rewritten`);
}
console.log(`${operations.length} operations documented`);
