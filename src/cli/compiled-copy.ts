// How the commands a person or a host waits on start (`forgeops mcp`, which a host spawns for every session, and
// `forgeops chat`): Node 20 keeps no compiled code for ES modules between processes, so each runs from a CommonJS copy
// of its code (dist/<command>.cjs, built by tools/bundle.mjs from src/cli/<command>-main.ts) whose compiled form V8
// hands back on the next start, kept in a private cache directory. Where no such directory can be trusted, or there is
// no copy (a build without tools/bundle.mjs), the command runs from the ES modules.
import { createHash } from 'node:crypto';
import {
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { privateCacheDir } from '../cache-dir.js';

/**
 * When the copy's compiled code is kept: once the handshake, the tool list and usually a first call have compiled what
 * a session runs (at exit if that comes first). Kept once per build of the copy, Node version and Node flags.
 */
const KEEP_COMPILED_AFTER_MS = 2_000;
/**
 * Files of compiled code kept per copy, those written or read last: two installations or Node versions side by side
 * keep theirs, and a contributor who rebuilds all day does not fill the temporary directory with every build's.
 */
const KEPT_PER_COPY = 4;
/** A file being written that is this old was left by a process that died writing it. */
const ABANDONED_MS = 3600_000;

/**
 * Starts a command from its compiled copy `copy` (which reads process.argv itself), else by `imported`, which imports
 * the same entry module from the ES modules.
 */
export async function startFromCopy(copy: string, imported: () => Promise<unknown>): Promise<void> {
  const cacheDir = privateCacheDir('code-cache');
  if (cacheDir && existsSync(copy)) return runCompiledCopy(copy, cacheDir);
  await imported();
}

/**
 * Runs the copy as Node would run a CommonJS file (it reads process.argv itself), given V8 its compiled code from the
 * last start when there is some for this very file; else keeps what this run compiles, for the next.
 */
function runCompiledCopy(file: string, cacheDir: string): void {
  // The build makes the copy pure ASCII, so latin1 reads it exactly, and faster than UTF-8.
  const source = readFileSync(file, 'latin1');
  const { size, mtimeMs, ino } = statSync(file);
  // V8 itself refuses code made by another V8 or under other flags, but checks the source only by its length. Node's
  // own flags go into the name, so that hosts that start it with different ones keep a file each instead of taking
  // turns writing one that the other refuses.
  const flags = createHash('sha256')
    .update(JSON.stringify([process.execArgv, process.env.NODE_OPTIONS ?? '']))
    .digest('hex')
    .slice(0, 16);
  const copyName = basename(file, '.cjs');
  const key = `${copyName}-${process.version}-${process.arch}-${flags}-${ino}-${size}-${Math.floor(mtimeMs)}.v8`;
  const cacheFile = join(cacheDir, key);
  const cachedData = readOrUndefined(cacheFile);
  // The copy is written as the function Node wraps a CommonJS module in:
  // (exports, require, module, __filename, __dirname).
  const script = new Script(source, { filename: file, cachedData });
  if (!cachedData || script.cachedDataRejected) keepCompiledCode(script, cacheDir, key, copyName);
  else markUsed(cacheFile);
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
}

function readOrUndefined(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Compiled code read back counts as new for pruning, which keeps the files used last. */
function markUsed(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {}
}

/** Writes what V8 compiled of `script` under `key` (whole, by a rename), once, and clears what is no longer kept. */
function keepCompiledCode(script: Script, cacheDir: string, key: string, copyName: string): void {
  let kept = false;
  const keep = () => {
    if (kept) return;
    kept = true;
    // An optimisation only: a full disk or a directory gone costs the next start its speed, nothing else.
    try {
      const building = join(cacheDir, `.${key}.${process.pid}`);
      writeFileSync(building, script.createCachedData(), { mode: 0o600 });
      renameSync(building, join(cacheDir, key));
      pruneCompiledCode(cacheDir, copyName);
    } catch {}
  };
  setTimeout(keep, KEEP_COMPILED_AFTER_MS).unref();
  process.once('exit', keep);
}

/** Keeps the KEPT_PER_COPY files of `copyName`'s compiled code used last, and removes abandoned partial writes. */
function pruneCompiledCode(cacheDir: string, copyName: string): void {
  const now = Date.now();
  const files = readdirSync(cacheDir).map((name) => ({ name, mtimeMs: statSync(join(cacheDir, name)).mtimeMs }));
  const abandoned = files.filter((f) => f.name.startsWith('.') && now - f.mtimeMs > ABANDONED_MS);
  const older = files
    .filter((f) => f.name.startsWith(`${copyName}-`) && f.name.endsWith('.v8'))
    .sort((a, b) => b.mtimeMs - a.mtimeMs)
    .slice(KEPT_PER_COPY);
  for (const { name } of [...abandoned, ...older]) rmSync(join(cacheDir, name), { force: true });
}
