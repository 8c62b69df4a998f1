// Which registry read a pasted link of the service stands for; anything else is not unfurled.
import { describe, expect, it } from 'vitest';
import { unfurlCall } from '../../../src/slack/unfurl.js';

const base = 'https://code.example.org/git';

describe('unfurlCall', () => {
  it('reads pipeline, commit, file and release links of the service', () => {
    expect(unfurlCall(`${base}/acme/web/-/pipelines/42`, base)).toEqual({
      url: `${base}/acme/web/-/pipelines/42`,
      project: 'acme/web',
      operation: 'get_pipeline',
      input: { id: 'acme/web', pipeline_id: 42 },
    });
    expect(unfurlCall(`${base}/acme/web/-/commit/abc123`, base)?.input).toEqual({ id: 'acme/web', sha: 'abc123' });
    expect(unfurlCall(`${base}/acme/platform/api/-/blob/main/src/a%20b.ts`, base)).toMatchObject({
      project: 'acme/platform/api',
      operation: 'get_file_metadata',
      input: { file_path: 'src/a b.ts', ref: 'main' },
    });
    expect(unfurlCall(`${base}/acme/web/-/releases/v1.2.0`, base)).toMatchObject({
      operation: 'get_release',
      input: { tag_name: 'v1.2.0' },
    });
  });

  it('leaves other pages, other hosts and bad links alone', () => {
    for (const url of [
      `${base}/acme/web`,
      `${base}/acme/web/-/issues/3`,
      `${base}/acme/web/-/tree/main`,
      'https://example.org/acme/web/-/pipelines/1',
      `${base}/acme/web/-/blob/%E0%A4%A/x`,
      'not a link',
    ]) {
      expect(unfurlCall(url, base)).toBeUndefined();
    }
  });
});
