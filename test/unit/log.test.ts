// The stderr log in both formats: text for a terminal, one JSON record a line for a pipeline; secrets masked in both,
// levels filtered in both.
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { attributedLogger, createJsonLogger, createLogger } from '../../src/log.js';

const TOKEN = 'glpat-x8Kd92nFq3LmZp7TvW1c';

describe('createLogger (text)', () => {
  it('writes time, level and the message with secrets masked, below its level nothing', () => {
    const lines: string[] = [];
    const log = createLogger('info', [TOKEN], (line) => lines.push(line) > 0);
    log.info(`calling with ${TOKEN}`);
    log.debug('not shown');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\S+Z info calling with \[redacted\]\n$/);
  });
});

describe('createJsonLogger', () => {
  it('writes one JSON record a line: level by name, ISO time, the replica, the message masked', async () => {
    const out = new PassThrough();
    const chunks: string[] = [];
    out.on('data', (c: Buffer) => chunks.push(c.toString()));
    const log = await createJsonLogger('info', [TOKEN], { replica: 'r2', destination: out });
    log.warn(`token ${TOKEN} refused`);
    log.debug('not shown');
    log.error('second');
    await new Promise((resolve) => setImmediate(resolve));
    const records = chunks
      .join('')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map((r) => [r.level, r.replica, r.msg])).toEqual([
      ['warn', 'r2', 'token [redacted] refused'],
      ['error', 'r2', 'second'],
    ]);
    expect(String(records[0].time)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(chunks.join('')).not.toContain(TOKEN);
  });

  it('is what the built CLI writes with FORGEOPS_LOG_FORMAT=json, never showing the token or the Redis password', async () => {
    const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0'], {
      env: {
        PATH: process.env.PATH ?? '',
        TMPDIR: tmpdir(),
        FORGEOPS_LOG_FORMAT: 'json',
        FORGEOPS_REPLICA_ID: 'r7',
        CODEHOST_URL: 'http://127.0.0.1:9',
        CODEHOST_TOKEN: TOKEN,
        FORGEOPS_REDIS_URL: 'redis://:s3cret-redis-pass@127.0.0.1:9/0',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let text = '';
    child.stderr!.on('data', (d: Buffer) => {
      text += d.toString();
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Bounded: 200 checks of 25 ms.
    for (let i = 0; i < 200 && !text.includes('\n'); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    child.kill('SIGTERM');
    await exited;
    const first = JSON.parse(text.split('\n')[0]) as Record<string, unknown>;
    expect(first).toMatchObject({ level: 'info', replica: 'r7', msg: 'configuration: the environment only' });
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('s3cret-redis-pass');
  });
});

describe('attributedLogger', () => {
  it('starts every line with whom it is about, at every level', () => {
    const lines: string[] = [];
    const base = {
      error: (m: string) => lines.push(`error ${m}`),
      warn: (m: string) => lines.push(`warn ${m}`),
      info: (m: string) => lines.push(`info ${m}`),
      debug: (m: string) => lines.push(`debug ${m}`),
    };
    const log = attributedLogger(base, 'codehost-user:7');
    log.info('mcp create_issue: 201 in 80 ms');
    log.warn('w');
    log.error('e');
    log.debug('d');
    expect(lines).toEqual([
      'info as codehost-user:7: mcp create_issue: 201 in 80 ms',
      'warn as codehost-user:7: w',
      'error as codehost-user:7: e',
      'debug as codehost-user:7: d',
    ]);
  });
});
