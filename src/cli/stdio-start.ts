// How `forgeops mcp` starts. An assistant's host spawns one stdio server per session and waits for it, and Node 20 keeps
// no compiled code for ES modules between processes: so the server runs from a CommonJS copy of its code
// (dist/mcp-stdio.cjs) whose compiled form V8 hands back on the next start, kept in a private cache directory. Where no
// such directory can be trusted, or there is no copy (a build without tools/bundle.mjs), it runs from the ES modules.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';
import { privateCacheDir } from '../cache-dir.js';

/**
 * A stdio server lives as long as the assistant's session and serves one client: V8's defaults size its heap for
 * throughput instead, the young generation growing to 32 MiB and the old one left to fill with garbage up to several
 * times what lives, so that RSS went from 74 MiB after the first call to 122 MiB after 10,000 while heap snapshots
 * at 1,000 and 10,000 calls held the same objects. Sized for memory instead (see docs/mcp.md, A long session): the young
 * generation keeps its first size and the old one is collected sooner. And undici's HTTP parser (WebAssembly) stays
 * on V8's baseline compiler: optimizing it, some 20 calls in, took 30 MiB for a moment, for parsing that is a few
 * microseconds of a call either way. Set first thing, not by NODE_OPTIONS or a re-spawn (which would double the start),
 * and before the compiled copy is read, since V8 takes compiled code only made under the same flags; each flag only
 * steers V8's sizing or compiling, none changes what the code does.
 */
function sizeHeapForLongSession(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--optimize-for-size');
  setFlagsFromString('--liftoff-only');
}

/**
 * When the copy's compiled code is kept: once the handshake, the tool list and usually a first call have compiled what
 * a session runs (at exit if that comes first). Kept once per build of the copy, Node version and V8 flags.
 */
const KEEP_COMPILED_AFTER_MS = 2_000;
/** Compiled code of other builds or Node versions is removed when it has not been written for this long. */
const STALE_MS = 7 * 24 * 3600_000;

/** Starts `forgeops mcp` with `args` (the options after the command); `copy` is the path of dist/mcp-stdio.cjs. */
export async function startStdioServer(args: string[], copy: string): Promise<void> {
  sizeHeapForLongSession();
  const cacheDir = privateCacheDir('code-cache');
  if (cacheDir && existsSync(copy)) return runCompiledCopy(copy, cacheDir);
  const { runMcpCommand } = await import('./mcp-stdio.js');
  await runMcpCommand(args);
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
  const key = `mcp-stdio-${process.version}-${process.arch}-${flags}-${ino}-${size}-${Math.floor(mtimeMs)}.v8`;
  const cacheFile = join(cacheDir, key);
  const cachedData = readOrUndefined(cacheFile);
  // The copy is written as the function Node wraps a CommonJS module in: (exports, require, module, __filename, __dirname).
  const script = new Script(source, { filename: file, cachedData });
  if (!cachedData || script.cachedDataRejected) keepCompiledCode(script, cacheDir, key);
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

/** Writes what V8 compiled of `script` under `key` (whole, by a rename), once, and clears other builds' stale code. */
function keepCompiledCode(script: Script, cacheDir: string, key: string): void {
  let kept = false;
  const keep = () => {
    if (kept) return;
    kept = true;
    // An optimisation only: a full disk or a directory gone costs the next start its speed, nothing else.
    try {
      const building = join(cacheDir, `.${key}.${process.pid}`);
      writeFileSync(building, script.createCachedData(), { mode: 0o600 });
      renameSync(building, join(cacheDir, key));
      const now = Date.now();
      for (const name of readdirSync(cacheDir)) {
        const path = join(cacheDir, name);
        if (name !== key && now - statSync(path).mtimeMs > STALE_MS) rmSync(path, { force: true });
      }
    } catch {}
  };
  setTimeout(keep, KEEP_COMPILED_AFTER_MS).unref();
  process.once('exit', keep);
}
