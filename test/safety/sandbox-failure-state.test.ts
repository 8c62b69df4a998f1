// Proves that a route failing midway (a 500 from an unreadable repository) leaves the stored release as it was.
import { rename } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { useSandbox, WEB } from '../unit/sandbox/routes-git-helpers.js';

const { call, sandbox } = useSandbox();

describe('a release update that fails while answering', () => {
  it('changes nothing', async () => {
    const project = sandbox().store.findProject('acme/web')!;
    const before = structuredClone(project.releases.find((release) => release.tag_name === 'v1.0.0'));
    const away = `${project.repo.dir}.away`;
    await rename(project.repo.dir, away);
    try {
      const answer = await call('PUT', `/projects/${WEB}/releases/v1.0.0`, {
        json: { name: 'Half-done', milestones: [] },
      });
      expect(answer.status).toBe(500);
    } finally {
      await rename(away, project.repo.dir);
    }
    expect(project.releases.find((release) => release.tag_name === 'v1.0.0')).toEqual(before);
    expect((await call('GET', `/projects/${WEB}/releases/v1.0.0`)).data.name).toBe(before!.name);
  });
});
