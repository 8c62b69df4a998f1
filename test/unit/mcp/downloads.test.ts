// The download folder: safe unique names inside it, nothing overwritten, and a cap on what it holds.
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENVIRONMENT } from '../../../src/config.js';
import {
  MAX_DOWNLOAD_DIR_BYTES,
  MAX_DOWNLOAD_DIR_FILES,
  safeFileName,
  saveDownload,
} from '../../../src/mcp/downloads.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'forgeops-dl-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('safeFileName', () => {
  it('keeps only a plain base name: no folders, no climbing out, no hidden files, nothing a shell reads', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('..\\..\\windows\\system.ini')).toBe('system.ini');
    expect(safeFileName('.bashrc')).toBe('bashrc');
    expect(safeFileName('a b;$(rm -rf).tar.gz')).toBe('a_b_rm_-rf_.tar.gz');
    expect(safeFileName('..')).toBe('download');
    expect(safeFileName(undefined)).toBe('download');
    expect(safeFileName(`${'x'.repeat(300)}.zip`).length).toBeLessThanOrEqual(80);
  });
});

describe('saveDownload', () => {
  it('writes inside the folder (creating it), never over an existing file', async () => {
    const dir = join(root, 'new', 'downloads');
    const first = await saveDownload(dir, '../escape.bin', Buffer.from('one'));
    const second = await saveDownload(dir, '../escape.bin', Buffer.from('one'));
    if (!first.saved || !second.saved) throw new Error('not saved');
    expect(dirname(first.path)).toBe(dir);
    expect(dirname(second.path)).toBe(dir);
    expect(second.path).not.toBe(first.path);
    expect(readFileSync(first.path, 'utf8')).toBe('one');
    expect(readdirSync(dir)).toHaveLength(2);
    expect(readdirSync(root)).toEqual(['new']);
  });

  it('does not follow a symlink planted under the name it would use', async () => {
    const target = join(root, 'target.txt');
    writeFileSync(target, 'keep me');
    const dir = join(root, 'dl');
    const first = await saveDownload(dir, 'f.bin', Buffer.from('x'));
    if (!first.saved) throw new Error('not saved');
    rmSync(first.path);
    symlinkSync(target, first.path);
    const again = await saveDownload(dir, 'f.bin', Buffer.from('x'));
    expect(again.saved).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('keep me');
  });

  it('refuses once the folder holds its cap of files, saying what to clear', async () => {
    const dir = join(root, 'full');
    const seed = await saveDownload(dir, 'seed', Buffer.from('s'));
    expect(seed.saved).toBe(true);
    for (let i = 1; i < MAX_DOWNLOAD_DIR_FILES; i++) writeFileSync(join(dir, `f${i}`), '');
    const refused = await saveDownload(dir, 'one-more', Buffer.from('x'));
    expect(refused).toEqual({
      saved: false,
      reason: expect.stringMatching(
        new RegExp(`^the download folder is full \\(${MAX_DOWNLOAD_DIR_FILES} files, .*the operator must clear `),
      ),
    });
    expect(readdirSync(dir)).toHaveLength(MAX_DOWNLOAD_DIR_FILES);
  });

  it('reports a folder it cannot write to as a reason, not a crash', async () => {
    const file = join(root, 'not-a-folder');
    writeFileSync(file, '');
    const outcome = await saveDownload(file, 'x', Buffer.from('x'));
    expect(outcome.saved).toBe(false);
  });
});

describe('FORGEOPS_DOWNLOAD_DIR', () => {
  it('is documented with the caps the folder really has', () => {
    const text = ENVIRONMENT.shape.FORGEOPS_DOWNLOAD_DIR.description ?? '';
    expect(text).toContain(`at most ${MAX_DOWNLOAD_DIR_FILES} files and ${MAX_DOWNLOAD_DIR_BYTES / 1024 ** 3} GiB`);
  });
});
