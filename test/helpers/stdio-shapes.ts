// Inputs to a stdio MCP server that a client or an attacker sends — odd initialize params, batches, split chunks, ids of
// every type, reused ids, stdin closed early — shared by the transport's differential test and the built CLI's.

export const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const initialize = (params: Record<string, unknown>, id: unknown = 0, extra: Record<string, unknown> = {}) =>
  line({ jsonrpc: '2.0', id, method: 'initialize', params, ...extra });
const INIT_PARAMS = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } };
const INITIALIZED = line({ jsonrpc: '2.0', method: 'notifications/initialized' });
const toolsList = (id: unknown, params?: unknown) =>
  line({ jsonrpc: '2.0', id, method: 'tools/list', ...(params === undefined ? {} : { params }) });

/** Each shape is the input as the chunks it arrives in; `end` closes stdin after them (no sentinel can follow then). */
export interface Shape {
  chunks: (string | Buffer)[];
  end?: boolean;
}

const handshake = initialize(INIT_PARAMS) + INITIALIZED;
export const SHAPES: Record<string, Shape> = {
  'a plain start': { chunks: [handshake + toolsList(1)] },
  'capabilities.elicitation: true': { chunks: [initialize({ ...INIT_PARAMS, capabilities: { elicitation: true } })] },
  'capabilities.roots: 5': { chunks: [initialize({ ...INIT_PARAMS, capabilities: { roots: 5 } })] },
  'capabilities.extensions: []': { chunks: [initialize({ ...INIT_PARAMS, capabilities: { extensions: [] } })] },
  'bad clientInfo.icons': {
    chunks: [initialize({ ...INIT_PARAMS, clientInfo: { name: 'p', version: '1', icons: [{ src: 5 }] } })],
  },
  'clientInfo missing': { chunks: [initialize({ protocolVersion: '2025-06-18', capabilities: {} })] },
  'an unknown protocol version': { chunks: [initialize({ ...INIT_PARAMS, protocolVersion: '1999-01-01' })] },
  'initialize with an extra member, then id 1': {
    chunks: [initialize(INIT_PARAMS, 0, { extra: true }) + INITIALIZED + toolsList(1)],
  },
  'tools/list {cursor: 5}': { chunks: [handshake + toolsList(1, { cursor: 5 })] },
  'tools/list {cursor: "x"}': { chunks: [handshake + toolsList(1, { cursor: 'x' })] },
  'tools/list before initialize': { chunks: [toolsList(1)] },
  'a second initialize': { chunks: [handshake + initialize(INIT_PARAMS, 1)] },
  'a reused id': { chunks: [handshake + toolsList(0) + toolsList(0)] },
  'ids of every type': {
    chunks: [
      handshake +
        [1.5, -3, 'x', '', null, true, { a: 1 }, [1], 2 ** 60]
          .map((id) => line({ jsonrpc: '2.0', id, method: 'ping' }))
          .join(''),
    ],
  },
  'a batch': { chunks: [`[${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' })}]\n`, handshake] },
  'an empty batch': { chunks: [`[]\n${handshake}`] },
  'split at every byte': { chunks: [...(handshake + toolsList(1))] },
  'split inside a multi-byte character': {
    chunks: (() => {
      const bytes = Buffer.from(initialize({ ...INIT_PARAMS, clientInfo: { name: 'prøbe ✓', version: '1' } }));
      const at = bytes.indexOf(Buffer.from('✓')) + 1;
      return [bytes.subarray(0, at), bytes.subarray(at)];
    })(),
  },
  'CRLF line ends': { chunks: [handshake.replaceAll('\n', '\r\n') + toolsList(1).replace('\n', '\r\n')] },
  'not JSON, then a request': { chunks: [`{nope\n${handshake}`] },
  'JSON that is no message': { chunks: [`{"hello":1}\n5\n"x"\nnull\n${handshake}`] },
  'jsonrpc "1.0"': { chunks: [line({ jsonrpc: '1.0', id: 1, method: 'ping' }) + handshake] },
  'an unknown method': { chunks: [handshake + line({ jsonrpc: '2.0', id: 9, method: 'no/such' })] },
  'a notification of an unknown method': { chunks: [handshake + line({ jsonrpc: '2.0', method: 'no/such' })] },
  'a response nobody asked for': { chunks: [handshake + line({ jsonrpc: '2.0', id: 99, result: {} })] },
  'stdin closed right after initialize': { chunks: [handshake], end: true },
  'stdin closed mid-line': { chunks: [handshake + toolsList(1).slice(0, 10)], end: true },
  'stdin closed with no newline after a request': { chunks: [handshake + toolsList(1).trimEnd()], end: true },
};

/** Answered last, in order: once its answer is out, every answer to what came before it is out too. */
const SENTINEL = { jsonrpc: '2.0', id: 'sentinel', method: 'ping' };

/**
 * Feeds `shape` to a server's input chunk by chunk and gives back every message it wrote, parsed, in order: up to the
 * sentinel's answer, or, when the shape closes the input (no sentinel can follow), until `settled` (which sees the
 * messages written so far).
 */
export async function feedShape(
  shape: Shape,
  input: NodeJS.WritableStream,
  output: NodeJS.ReadableStream,
  settled: (written: readonly unknown[]) => Promise<unknown>,
): Promise<unknown[]> {
  const written: unknown[] = [];
  let text = '';
  let sentinelSeen: () => void = () => undefined;
  const sentinel = new Promise<void>((resolve) => {
    sentinelSeen = resolve;
  });
  output.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n')) {
      const message = JSON.parse(text.slice(0, end)) as { id?: unknown };
      text = text.slice(end + 1);
      if (message.id === SENTINEL.id) sentinelSeen();
      else written.push(message);
    }
  });
  for (const chunk of shape.chunks) {
    input.write(chunk);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  if (shape.end) {
    input.end();
    await settled(written);
  } else {
    input.write(line(SENTINEL));
    await sentinel;
  }
  return written;
}

/** What a client tells apart in an answer: whom it answers, and whether it is a result (and of which members) or which error. */
export function answerShape(answer: unknown): unknown {
  const { id, result, error } = answer as { id?: unknown; result?: Record<string, unknown>; error?: { code: number } };
  return error ? { id, error: error.code } : { id, result: Object.keys(result ?? {}).sort() };
}
