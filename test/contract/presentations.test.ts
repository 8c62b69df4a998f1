// Chat presentations of the on-call operations, built from real sandbox answers: titles, fields, follow-up actions.
import { describe, expect, it } from 'vitest';
import type { Presentation } from '../../src/operations/engine/define.js';
import { contractSuite } from './harness.js';

const suite = contractSuite();
const PROJECT = 'acme/web';

async function presentationOf(name: string, input: Record<string, unknown>): Promise<Presentation> {
  const result = await suite.call(name, input);
  const op = suite.operation(name);
  expect(op.present).toBeTypeOf('function');
  return op.present!(result.data, input as never);
}

type Pipeline = { id: number; status: string; ref: string };

async function pipelineWithStatus(status: string): Promise<Pipeline> {
  const { data } = await suite.call('list_pipelines', { id: PROJECT, status, per_page: 1 });
  const [pipeline] = data as Pipeline[];
  expect(pipeline?.status).toBe(status);
  return pipeline;
}

describe.shuffle('presentations, in any order', () => {
  describe('pipeline presentations', () => {
    it('offers Retry on a failed pipeline, naming the exact call', async () => {
      const failed = await pipelineWithStatus('failed');
      const shown = await presentationOf('get_pipeline', { id: PROJECT, pipeline_id: failed.id });
      expect(shown.title).toBe(`Pipeline #${failed.id}: failed`);
      expect(shown.fields).toContainEqual(['ref', failed.ref]);
      expect(shown.actions).toEqual([
        {
          label: 'Retry',
          operation: 'retry_pipeline',
          input: { id: PROJECT, pipeline_id: failed.id },
          style: 'primary',
        },
      ]);
    });

    it('offers Cancel on a running pipeline and nothing on a successful one', async () => {
      const running = await pipelineWithStatus('running');
      const runningShown = await presentationOf('get_pipeline', { id: PROJECT, pipeline_id: running.id });
      expect(runningShown.actions?.map((a) => [a.label, a.operation])).toEqual([
        ['Cancel pipeline', 'cancel_pipeline'],
      ]);
      const success = await pipelineWithStatus('success');
      const successShown = await presentationOf('get_pipeline', { id: PROJECT, pipeline_id: success.id });
      expect(successShown.actions).toEqual([]);
      expect(successShown.fields?.find(([k]) => k === 'duration')?.[1]).toMatch(/^\d+m \d+s$|^\d+s$/);
    });

    it('after a retry the same presentation offers Cancel, since the pipeline is pending again', async () => {
      const failed = await pipelineWithStatus('failed');
      const shown = await presentationOf('retry_pipeline', { id: PROJECT, pipeline_id: failed.id });
      expect(shown.title).toBe(`Pipeline #${failed.id}: pending`);
      expect(shown.actions?.[0]?.operation).toBe('cancel_pipeline');
    });

    it('counts a list and shows one line per pipeline', async () => {
      const shown = await presentationOf('list_pipelines', { id: PROJECT, per_page: 3 });
      expect(shown.title).toBe('3 pipelines');
      expect(shown.fields).toHaveLength(3);
      for (const [label, line] of shown.fields ?? []) {
        expect(label).toMatch(/^#\d+$/);
        expect(line).toMatch(/^(running|pending|success|failed|canceled|skipped) · /);
      }
    });
  });

  describe('release presentations', () => {
    it('titles a release with its tag and name', async () => {
      const { data } = await suite.call('list_releases', { id: PROJECT, per_page: 1 });
      const [latest] = data as Array<{ tag_name: string; name: string }>;
      const shown = await presentationOf('get_release', { id: PROJECT, tag_name: latest.tag_name });
      expect(shown.title).toBe(`Release ${latest.tag_name}: ${latest.name}`);
      expect(shown.fields).toContainEqual(['tag', latest.tag_name]);
      const listed = await presentationOf('list_releases', { id: PROJECT });
      expect(listed.title).toMatch(/^\d+ releases?$/);
    });
  });
});
