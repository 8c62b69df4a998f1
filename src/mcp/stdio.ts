// Stdio transport for the MCP server: newline-delimited JSON with a per-message byte cap; an oversized message is refused, not fatal.
// The SDK's StdioServerTransport closes itself silently when its buffer passes 10 MiB, leaving a live process that never answers.
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../log.js';
import { silentLogger } from '../log.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../defaults.js';
import { LIMIT_ERROR_CODE, messageTooLargeText } from './limits.js';

/** Bytes kept from each end of an oversized line: enough to find its id, which clients put first or last. */
const EDGE_BYTES = 512;
const NEWLINE = 0x0a;

interface StdioOptions {
  input?: Readable;
  output?: Writable;
  /** Largest message in bytes, newline excluded (default 16 MiB, FORGEOPS_MAX_MESSAGE_BYTES). */
  maxMessageBytes?: number;
  log?: Logger;
}

export type RequestId = string | number;

const ID_VALUE = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** A request: `method` among its first members. Answering a response (to our elicitation) with an error would misfire. */
const REQUEST_START = /^\s*\{\s*(?:"(?:jsonrpc|id)"\s*:\s*(?:"[^"\\]*"|-?\d+)\s*,\s*){0,2}"method"\s*:/;
/** `{"jsonrpc":"2.0","id":…` — members before the id are short top-level strings, so this id is the message's own. */
const LEADING_ID = new RegExp(
  String.raw`^\s*\{\s*(?:"(?:jsonrpc|method)"\s*:\s*"[^"\\]*"\s*,\s*){0,2}"id"\s*:\s*${ID_VALUE}`,
);
/** `…,"id":7}` — the member just before the final brace of valid JSON is a top-level one (the SDK's own order). */
const TRAILING_ID = new RegExp(String.raw`"id"\s*:\s*${ID_VALUE}\s*\}\s*$`);

/** The id of a request we will not parse whole, from its first and last bytes; undefined when not a request or not shown. */
export function recoverId(head: string, tail: string): RequestId | undefined {
  if (!REQUEST_START.test(head)) return undefined;
  const match = LEADING_ID.exec(head) ?? TRAILING_ID.exec(tail);
  if (!match) return undefined;
  try {
    const id = JSON.parse(match[1]) as unknown;
    return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : undefined;
  } catch {
    return undefined;
  }
}

/** An oversized line being skipped: only its size and its two ends are kept. */
interface Skipped {
  bytes: number;
  head: Buffer;
  tail: Buffer;
}

export class LimitedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly input: Readable;
  private readonly output: Writable;
  private readonly maxBytes: number;
  private readonly log: Logger;
  private chunks: Buffer[] = [];
  private size = 0;
  private skipped?: Skipped;
  private closed = false;

  constructor(options: StdioOptions = {}) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.log = options.log ?? silentLogger;
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
    this.input.on('end', this.onEnd);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    if (this.output.write(`${JSON.stringify(message)}\n`)) return;
    await new Promise<void>((resolve) => this.output.once('drain', resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    this.input.off('end', this.onEnd);
    this.input.pause();
    this.chunks = [];
    this.onclose?.();
  }

  private readonly onInputError = (error: Error) => this.onerror?.(error);

  private readonly onEnd = () => {
    if (this.skipped) this.refuse(this.skipped);
    void this.close();
  };

  private readonly onData = (chunk: Buffer | string) => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let end = data.indexOf(NEWLINE); ; end = data.indexOf(NEWLINE)) {
      const piece = end === -1 ? data : data.subarray(0, end);
      this.take(piece);
      if (end === -1) return;
      this.lineEnded();
      data = data.subarray(end + 1);
    }
  };

  /** Adds part of the current line, switching to skipping once the line passes the cap, so memory stays bounded. */
  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.skipped) {
      this.skipped.bytes += piece.length;
      this.skipped.tail = lastBytes([this.skipped.tail, piece]);
      return;
    }
    if (this.size + piece.length <= this.maxBytes) {
      this.chunks.push(piece);
      this.size += piece.length;
      return;
    }
    const parts = [...this.chunks, piece];
    this.skipped = { bytes: this.size + piece.length, head: firstBytes(parts), tail: lastBytes(parts) };
    this.chunks = [];
    this.size = 0;
  }

  private lineEnded(): void {
    if (this.skipped) {
      this.refuse(this.skipped);
      this.skipped = undefined;
      return;
    }
    const line = Buffer.concat(this.chunks, this.size).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch (error) {
      // Not the line itself in the log: it may carry file content or secrets.
      this.log.warn(
        `mcp stdio: ignored a line of ${line.length} characters that is not ${error instanceof SyntaxError ? 'JSON' : 'a JSON-RPC message'}`,
      );
      this.onerror?.(error as Error);
      return;
    }
    this.onmessage?.(message);
  }

  /** Answers an oversized request with an error naming the limit, when its id shows; the server goes on serving. */
  private refuse(line: Skipped): void {
    const text = messageTooLargeText(this.maxBytes, line.bytes);
    const id = recoverId(line.head.toString('utf8'), line.tail.toString('utf8').replace(/\r$/, ''));
    this.log.warn(`mcp stdio: refused a message${id === undefined ? '' : ` (id ${JSON.stringify(id)})`}: ${text}`);
    // Without an id the client cannot match the answer to its request, but it still sees why (MCP allows no id here).
    const error = { code: LIMIT_ERROR_CODE, message: text };
    this.send((id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error }) as JSONRPCMessage).catch(
      () => undefined,
    );
  }
}

/** A copy of the first EDGE_BYTES of a line, so the big chunks it came in can be freed. */
function firstBytes(parts: Buffer[]): Buffer {
  const kept: Buffer[] = [];
  let size = 0;
  for (let i = 0; i < parts.length && size < EDGE_BYTES; i++) {
    kept.push(parts[i]);
    size += parts[i].length;
  }
  return Buffer.from(Buffer.concat(kept, size).subarray(0, EDGE_BYTES));
}

/** A copy of the last EDGE_BYTES of a line. */
function lastBytes(parts: Buffer[]): Buffer {
  const kept: Buffer[] = [];
  let size = 0;
  for (let i = parts.length - 1; i >= 0 && size < EDGE_BYTES; i--) {
    kept.unshift(parts[i]);
    size += parts[i].length;
  }
  return Buffer.from(Buffer.concat(kept, size).subarray(Math.max(0, size - EDGE_BYTES)));
}
