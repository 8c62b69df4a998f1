// The built CLI's terminal chat with --dry-run: on one command line, or for the whole session; the preview is shown,
// nobody is asked, and the pipeline it would have deleted is still there afterwards. Also `pipeline wait`.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bareEnv, cli } from '../helpers/terminal-session.js';

function chat(args: string[], input?: string) {
  return spawnSync(process.execPath, [cli, 'chat', ...args], {
    cwd: '/',
    env: bareEnv,
    encoding: 'utf8',
    timeout: 30_000,
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
}

describe('forgeops chat with --dry-run', () => {
  it('shows what one command would send and asks nothing, exit 0', () => {
    const out = chat(['pipeline delete acme/web 1 --dry-run']);
    expect(out.status).toBe(0);
    expect(out.stdout.split('\n')[0]).toBe('· Dry run: Delete pipeline (nothing was sent)');
    expect(out.stdout).toContain('DELETE /api/v4/projects/acme%2Fweb/pipelines/1');
    expect(out.stdout).toMatch(/would change +Cannot be undone/);
    expect(out.stdout).toMatch(/approval +a real run asks first\n/);
    expect(out.stderr).not.toMatch(/\[y\/N\]/);
  });

  it('prints the preview as JSON with --json, the flag given to the command line', () => {
    const out = chat(['pipeline', 'create', 'acme/web', 'ref=main', '--dry-run', '--json']);
    expect(out.status).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      dry_run: 'nothing was sent',
      operation: 'create_pipeline',
      request: { method: 'POST', path: '/api/v4/projects/acme%2Fweb/pipeline', body: { ref: 'main' } },
      needs_confirmation: false,
    });
  });

  it('sends nothing: the pipeline a dry-run delete names is still there, on a line or for the whole session', () => {
    const line = chat([], 'pipeline delete acme/web 1 --dry-run\npipeline get acme/web 1\n');
    expect(line.status).toBe(0);
    expect(line.stdout).toContain('Dry run: Delete pipeline (nothing was sent)');
    expect(line.stdout).toContain('Pipeline #1: success');
    expect(line.stdout).not.toMatch(/Run exactly this call\?/);

    const session = chat(['--dry-run'], 'pipeline delete acme/web 1\npipeline get acme/web 1\n');
    expect(session.status).toBe(0);
    expect(session.stdout).toContain(
      'Dry run: commands that change something show what they would send; nothing is sent.',
    );
    expect(session.stdout).toContain('Dry run: Delete pipeline (nothing was sent)');
    expect(session.stdout).toContain('Pipeline #1: success');
  });

  it('waits for a pipeline with pipeline wait', () => {
    const out = chat(['pipeline wait acme/web 1']);
    expect(out.status).toBe(0);
    expect(out.stdout.split('\n')[0]).toBe('✓ Pipeline #1: success');
  });
});
