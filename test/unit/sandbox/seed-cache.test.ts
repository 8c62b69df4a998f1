// The seed template kept between processes: a private directory of the user's, a template read back instead of built
// again, published whole when two processes build it at once, nothing left of a failed build, an untrusted directory
// never used (the sandbox then builds its own, as the CLI run at the end shows).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cachedTemplate, seedCacheRoot, type SeedTemplateFiles } from '../../../src/sandbox/core/seed-cache.js';

const base = mkdtempSync(join(tmpdir(), 'forgeops-seed-cache-test-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const uid = process.getuid!();

/** A build that writes one file as its "repository" and counts how often it ran. */
function counted(): { build: (dir: string) => Promise<SeedTemplateFiles>; runs: () => number } {
  let runs = 0;
  return {
    runs: () => runs,
    build: async (dir) => {
      runs++;
      mkdirSync(join(dir, 'repositories', '1.git'), { recursive: true });
      writeFileSync(join(dir, 'repositories', '1.git', 'HEAD'), 'ref: refs/heads/main\n');
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { repoDirs: [join(dir, 'repositories', '1.git')], histories: [[{ sha: 'a'.repeat(40), parent: null }]] };
    },
  };
}

describe('the seed template cache', () => {
  it('lives in a directory of its own user, closed to everyone else', async () => {
    const root = await seedCacheRoot(join(base, 'private'));
    expect(root).toBe(join(base, 'private', `forgeops-${uid}`, 'sandbox-seed'));
    expect(statSync(root!).mode & 0o777).toBe(0o700);
  });

  it('is not used where others could have written into it', async () => {
    const open = join(base, 'open');
    mkdirSync(join(open, `forgeops-${uid}`), { recursive: true });
    chmodSync(join(open, `forgeops-${uid}`), 0o777);
    expect(await seedCacheRoot(open)).toBeUndefined();
  });

  it('builds a template once and reads it back after, under its key', async () => {
    const root = (await seedCacheRoot(join(base, 'once')))!;
    const { build, runs } = counted();
    const first = await cachedTemplate(root, 'k1', build);
    const again = await cachedTemplate(root, 'k1', build);
    expect(runs()).toBe(1);
    expect(again).toEqual(first);
    expect(first.repoDirs).toEqual([join(root, 'k1', 'repositories', '1.git')]);
    expect(readdirSync(root)).toEqual(['k1']);
  });

  it('ends with one whole template when two build it at once', async () => {
    const root = (await seedCacheRoot(join(base, 'race')))!;
    const one = counted();
    const other = counted();
    const [a, b] = await Promise.all([cachedTemplate(root, 'k2', one.build), cachedTemplate(root, 'k2', other.build)]);
    expect(one.runs() + other.runs()).toBe(2);
    expect(a).toEqual(b);
    expect(readdirSync(root)).toEqual(['k2']);
  });

  it('leaves nothing of a build that failed, and says why', async () => {
    const root = (await seedCacheRoot(join(base, 'failed')))!;
    await expect(
      cachedTemplate(root, 'k3', async () => {
        throw new Error('git is not installed');
      }),
    ).rejects.toThrow('git is not installed');
    expect(readdirSync(root)).toEqual([]);
  });

  it('lets the sandbox build its own where the cache cannot be trusted', () => {
    const hostile = join(base, 'hostile');
    mkdirSync(join(hostile, `forgeops-${uid}`, 'sandbox-seed'), { recursive: true });
    chmodSync(join(hostile, `forgeops-${uid}`), 0o777);
    const cli = fileURLToPath(new URL('../../../dist/cli.js', import.meta.url));
    const out = spawnSync(process.execPath, [cli, 'chat', 'pipeline list acme/web'], {
      cwd: '/',
      env: { PATH: process.env.PATH, HOME: base, TMPDIR: hostile },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^\d+ pipelines$/m);
    expect(readdirSync(join(hostile, `forgeops-${uid}`, 'sandbox-seed'))).toEqual([]);
  });
});
