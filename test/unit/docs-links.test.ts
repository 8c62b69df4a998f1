// The docs a newcomer reads stay navigable: README.md short, and every relative link in them reaching a file and heading.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const DOCUMENTS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced code blocks: a `# comment` in a shell block is neither a heading nor a link. */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else return !fenced;
    return false;
  });
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const repeats = seen.get(slug) ?? 0;
    seen.set(slug, repeats + 1);
    anchors.add(repeats === 0 ? slug : `${slug}-${repeats}`);
  }
  return anchors;
}

/** Every link and image target of the prose, inline code left out (a `[x](y)` there is an example, not a link). */
function linkTargets(markdown: string): string[] {
  const targets: string[] = [];
  for (const line of prose(markdown)) {
    const withoutCode = line.replace(/`[^`]*`/g, '');
    for (const match of withoutCode.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) targets.push(match[1]!);
  }
  return targets;
}

/** What is wrong with one relative link of `document`, or undefined when it reaches an existing file and heading. */
function brokenLink(document: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [path = '', anchor] = target.split('#', 2);
  const file = path === '' ? join(root, document) : join(root, dirname(document), decodeURIComponent(path));
  if (!relative(root, file) || relative(root, file).startsWith('..')) return `${target} leaves the repository`;
  if (!existsSync(file)) return `${target}: no such file`;
  if (anchor === undefined) return undefined;
  if (!file.endsWith('.md') || statSync(file).isDirectory())
    return `${target}: an anchor into a file that is not markdown`;
  if (!headingAnchors(readFileSync(file, 'utf8')).has(anchor)) return `${target}: no such heading`;
  return undefined;
}

describe('the docs', () => {
  it('keep README.md to a few screens, with the rest in docs/', () => {
    const lines = readFileSync(join(root, 'README.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThan(300);
  });

  it.each(DOCUMENTS)('%s links only to files and headings that exist', (document) => {
    const targets = linkTargets(readFileSync(join(root, document), 'utf8'));
    expect(targets.length).toBeGreaterThan(0);
    expect(targets.map((target) => brokenLink(document, target)).filter(Boolean)).toEqual([]);
  });

  it('makes anchors as GitHub does', () => {
    const anchors = headingAnchors(
      '# On call: from "main is red" to green again\n## Which `tools` an assistant sees\n```\n# not a heading\n```\n## Slack\n## Slack\n',
    );
    expect([...anchors]).toEqual([
      'on-call-from-main-is-red-to-green-again',
      'which-tools-an-assistant-sees',
      'slack',
      'slack-1',
    ]);
  });

  it('reads links outside code only', () => {
    expect(linkTargets('See [a](docs/a.md#x) and ![img](images/b.png) but not `[c](d)`.\n```\n[e](f)\n```\n')).toEqual([
      'docs/a.md#x',
      'images/b.png',
    ]);
  });
});
