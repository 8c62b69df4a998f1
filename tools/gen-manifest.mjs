// Writes manifest.json (the Slack app manifest) from the built registry: node tools/gen-manifest.mjs
//   [--url https://forgeops.example.com] [--socket-mode] [--unfurl-domain code.example.com] [--out manifest.json]
// With no options it writes the committed file (a test fails when that is stale); with options, your own app's.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    'socket-mode': { type: 'boolean' },
    'unfurl-domain': { type: 'string' },
    out: { type: 'string' },
  },
});
const { operations } = await import(`${root}dist/operations/index.js`);
const { slackManifest } = await import(`${root}dist/slack/manifest.js`);
const manifest = slackManifest(operations, {
  publicUrl: values.url,
  socketMode: values['socket-mode'],
  unfurlDomain: values['unfurl-domain'],
});
const out = values.out ?? `${root}manifest.json`;
writeFileSync(out, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(
  `${out}: the /forge command (${operations.length} operations)${values['socket-mode'] ? ', Socket Mode' : ''}`,
);
