// Reading a request body without letting one client, or all of them together, hold more than a fixed number of bytes:
// a body over the message cap is 413, a body that would overfill the budget shared by all requests is 503.
import type { IncomingMessage } from 'node:http';
import { LIMIT_ERROR_CODE, messageTooLargeText } from '../limits.js';
import { Refusal } from './refusal.js';

/** Bodies being read at once may hold this many maximum-size messages in memory, all clients together. */
export const PENDING_BODY_BUDGET = 4;

export interface BodyReader {
  /** Reads a body up to the message cap without buffering more, within the budget shared by all requests. */
  readBody(req: IncomingMessage): Promise<Buffer>;
  /** The body as JSON (undefined when empty); a body that is not JSON is a 400 parse error. */
  readJson(req: IncomingMessage): Promise<unknown>;
  /** Bytes of bodies being read now, all requests together. */
  pendingBytes(): number;
}

export function bodyReader(maxMessageBytes: number, budgetBytes = PENDING_BODY_BUDGET * maxMessageBytes): BodyReader {
  let pendingBodyBytes = 0;

  function readBody(req: IncomingMessage): Promise<Buffer> {
    const declared = Number(req.headers['content-length'] ?? 0);
    const tooLarge = () =>
      new Refusal(
        413,
        LIMIT_ERROR_CODE,
        messageTooLargeText(maxMessageBytes, declared > maxMessageBytes ? declared : undefined),
        'too large',
      );
    if (declared > maxMessageBytes) return Promise.reject(tooLarge());
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let settled = false;
      const finish = (error?: Error) => {
        if (settled) return;
        settled = true;
        pendingBodyBytes -= size;
        req.off('data', onData).off('end', onEnd).off('error', onClose).off('close', onClose);
        if (error) {
          // Stop reading: what is still in flight is dropped with the connection after the answer.
          req.pause();
          reject(error);
        } else resolve(Buffer.concat(chunks, size));
      };
      const onData = (chunk: Buffer) => {
        if (size + chunk.length > maxMessageBytes) return finish(tooLarge());
        if (pendingBodyBytes + chunk.length > budgetBytes) {
          return finish(
            new Refusal(503, -32000, 'Server busy: too many large requests at once; retry shortly', 'busy', {
              'retry-after': '1',
            }),
          );
        }
        size += chunk.length;
        pendingBodyBytes += chunk.length;
        chunks.push(chunk);
      };
      const onEnd = () => finish();
      const onClose = () =>
        finish(new Refusal(400, -32000, 'Bad Request: the client went away before the body ended', 'aborted'));
      req.on('data', onData).on('end', onEnd).on('error', onClose).on('close', onClose);
    });
  }

  return {
    readBody,
    async readJson(req) {
      const text = (await readBody(req)).toString('utf8');
      try {
        return text ? JSON.parse(text) : undefined;
      } catch (error) {
        throw new Refusal(400, -32700, `Parse error: ${(error as Error).message}`, 'parse error');
      }
    },
    pendingBytes: () => pendingBodyBytes,
  };
}
