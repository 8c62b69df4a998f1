// A minimal WebSocket server for tests (RFC 6455: the upgrade handshake, masked client frames, text, ping/pong,
// close), enough to play Slack's Socket Mode end on loopback; no library, so nothing else is needed to run it.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export interface TestSocket {
  send(text: string): void;
  /** Text messages received, in order. */
  received: string[];
}

export interface TestWebSocketServer {
  url: string;
  /** The connections made, in order. */
  sockets: TestSocket[];
  close(): Promise<void>;
}

function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const head =
    length < 126
      ? Buffer.from([0x80 | opcode, length])
      : length < 65536
        ? Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff])
        : Buffer.concat([
            Buffer.from([0x80 | opcode, 127]),
            (() => {
              const b = Buffer.alloc(8);
              b.writeBigUInt64BE(BigInt(length));
              return b;
            })(),
          ]);
  return Buffer.concat([head, payload]);
}

/** Reads whole frames off the buffer; returns what is left of a frame not yet complete. */
function readFrames(buffer: Buffer, onFrame: (opcode: number, payload: Buffer) => void): Buffer {
  let rest = buffer;
  for (;;) {
    if (rest.length < 2) return rest;
    const opcode = rest[0] & 0x0f;
    const masked = (rest[1] & 0x80) !== 0;
    let length = rest[1] & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (rest.length < 4) return rest;
      length = rest.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (rest.length < 10) return rest;
      length = Number(rest.readBigUInt64BE(2));
      offset = 10;
    }
    const mask = masked ? rest.subarray(offset, offset + 4) : undefined;
    if (masked) offset += 4;
    if (rest.length < offset + length) return rest;
    const payload = Buffer.from(rest.subarray(offset, offset + length));
    if (mask) for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i % 4];
    onFrame(opcode, payload);
    rest = rest.subarray(offset + length);
  }
}

export async function startTestWebSocketServer(onConnect: (socket: TestSocket) => void): Promise<TestWebSocketServer> {
  const sockets: TestSocket[] = [];
  const open = new Set<Duplex>();
  const server: Server = createServer((_req, res) => res.writeHead(426).end());
  server.on('upgrade', (req, raw: Duplex) => {
    const key = req.headers['sec-websocket-key'];
    if (typeof key !== 'string') return raw.destroy();
    const accept = createHash('sha1')
      .update(key + GUID)
      .digest('base64');
    raw.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    open.add(raw);
    raw.on('close', () => open.delete(raw));
    raw.on('error', () => open.delete(raw));
    const socket: TestSocket = {
      received: [],
      send: (text) => {
        if (!raw.destroyed) raw.write(frame(0x1, Buffer.from(text, 'utf8')));
      },
    };
    sockets.push(socket);
    let pending: Buffer = Buffer.alloc(0);
    raw.on('data', (chunk: Buffer) => {
      pending = readFrames(Buffer.concat([pending, chunk]), (opcode, payload) => {
        if (opcode === 0x1) socket.received.push(payload.toString('utf8'));
        else if (opcode === 0x9) raw.write(frame(0xa, payload));
        else if (opcode === 0x8) raw.end(frame(0x8, payload));
      });
    });
    onConnect(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/link`,
    sockets,
    async close() {
      for (const raw of open) raw.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A /forge slash command as Slack sends it over a Socket Mode connection, in its envelope. */
export function commandEnvelope(socket: TestSocket, id: string, text: string, responseUrl: string): void {
  socket.send(
    JSON.stringify({
      envelope_id: id,
      type: 'slash_commands',
      accepts_response_payload: true,
      payload: {
        token: 'legacy',
        team_id: 'T1',
        team_domain: 't1',
        channel_id: 'C1',
        channel_name: 'ops',
        user_id: 'U1',
        user_name: 'ana',
        command: '/forge',
        text,
        api_app_id: 'A1',
        response_url: responseUrl,
        trigger_id: 'trig.1',
      },
    }),
  );
}
