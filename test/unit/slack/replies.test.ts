// The post queue: one message at a time per channel, spaced, waiting out a 429's Retry-After, bounded.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { PostQueue } from '../../../src/slack/replies.js';

const message = (text: string) => ({ text, blocks: [] });

describe('PostQueue', () => {
  it('posts in order per channel, spaced by the interval, and retries after Retry-After on a 429', async () => {
    const posted: Array<{ channel: string; text: string; at: number }> = [];
    let limited = 1;
    const queue = new PostQueue({
      log: silentLogger,
      intervalMs: 30,
      post: async (args) => {
        if (args.text === 'b' && limited-- > 0) throw Object.assign(new Error('rate limited'), { retryAfter: 0.1 });
        posted.push({ channel: args.channel, text: args.text, at: Date.now() });
      },
    });
    const results = await Promise.all([
      queue.post('C1', message('a')),
      queue.post('C1', message('b')),
      queue.post('C2', message('c')),
    ]);
    expect(results).toEqual([true, true, true]);
    expect(posted.filter((p) => p.channel === 'C1').map((p) => p.text)).toEqual(['a', 'b']);
    const [a, b] = posted.filter((p) => p.channel === 'C1');
    expect(b.at - a.at).toBeGreaterThanOrEqual(90);
  });

  it('drops what exceeds its bounds, and a message rate limited too often', async () => {
    const queue = new PostQueue({
      log: silentLogger,
      intervalMs: 1,
      maxPerChannel: 1,
      maxAttempts: 2,
      post: async () => {
        throw Object.assign(new Error('rate limited'), { retryAfter: 0 });
      },
    });
    const first = queue.post('C1', message('a'));
    expect(await queue.post('C1', message('b'))).toBe(false);
    expect(await first).toBe(false);
  });
});
