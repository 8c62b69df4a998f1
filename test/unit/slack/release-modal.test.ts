// The release form's pure parts: answers read back as create_release's arguments, errors keyed to the form's blocks.
import { describe, expect, it } from 'vitest';
import {
  inputErrors,
  releaseArguments,
  releaseOrigin,
  releaseView,
  serviceErrors,
} from '../../../src/slack/release-modal.js';

const values = (v: Record<string, string | null>) =>
  Object.fromEntries(Object.entries(v).map(([k, value]) => [k, { value: { value } }]));

describe('release form', () => {
  it('reads the answers: empty fields left out, one-line fields trimmed, notes keep their lines, milestones split', () => {
    expect(
      releaseArguments(
        values({
          id: ' acme/web ',
          tag_name: 'v1',
          ref: '',
          name: null,
          description: '\n  - a\n  - b\n\n',
          milestones: '1.0, ,1.1 ',
        }),
      ),
    ).toEqual({ id: 'acme/web', tag_name: 'v1', description: '  - a\n  - b', milestones: ['1.0', '1.1'] });
    expect(releaseArguments({})).toEqual({});
  });

  it('carries its origin through private_metadata and refuses one it did not write', () => {
    const view = releaseView({ channelId: 'C1', responseUrl: 'https://hooks.slack.test/x' }, 'acme/web');
    expect(releaseOrigin(view.private_metadata as string)).toEqual({
      channelId: 'C1',
      responseUrl: 'https://hooks.slack.test/x',
    });
    expect(releaseOrigin('{"channel":1}')).toBeUndefined();
    expect(releaseOrigin(undefined)).toBeUndefined();
  });

  it('keys errors to blocks: our issues by field, the service by its field errors, 409 to the tag, a named ref to the ref', () => {
    expect(
      inputErrors([
        { field: 'tag_name', message: 'too short' },
        { field: 'milestones.0', message: 'empty' },
        { field: '', message: 'whole' },
      ]),
    ).toEqual({ tag_name: 'too short', milestones: 'empty', id: 'whole' });
    const args = { id: 'acme/web', tag_name: 'v1', ref: 'nope' };
    expect(serviceErrors({ status: 400, fieldErrors: { tag_name: ['is invalid'], base: ['no'] } }, 'x', args)).toEqual({
      tag_name: 'is invalid; base no',
    });
    expect(serviceErrors({ status: 409 }, '409 Release already exists\nmore', args)).toEqual({
      tag_name: '409 Release already exists',
    });
    expect(serviceErrors({ status: 400 }, '400 Target nope is invalid', args)).toEqual({
      ref: '400 Target nope is invalid',
    });
    expect(serviceErrors(undefined, 'this channel is read-only', args)).toEqual({ id: 'this channel is read-only' });
    // No ref for a new tag: the service's complaint goes under the ref, in words, not under the project.
    expect(serviceErrors({ status: 422 }, '422 Ref is not specified', { id: 'acme/web', tag_name: 'v1.2' })).toEqual({
      ref: 'v1.2 is not a tag yet: name the branch, tag or commit to create it from (the service said: 422 Ref is not specified)',
    });
    expect(serviceErrors({ status: 404 }, 'x'.repeat(400), args).id).toHaveLength(300);
  });
});
