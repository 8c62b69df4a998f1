// Ports chosen beforehand: held until their program starts, and a program's only when its own socket listens there,
// not when the port merely answers (the balancers' and the sessions bench's start-up rests on both).
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listensOn, reservePort } from '../../../tools/ports.mjs';
import { startHaproxy } from '../../helpers/balancers.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listen(): Promise<number> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

describe('listensOn', () => {
  it('finds the socket this process listens on, and no other port', async () => {
    const port = await listen();
    expect(listensOn(process.pid, port)).toBe(true);
    const closed = await listen();
    await new Promise((resolve) => servers.pop()?.close(resolve));
    expect(listensOn(process.pid, closed)).toBe(false);
  });

  it("does not count another process's listener as this one's", async () => {
    const child = spawn(
      process.execPath,
      ['-e', "require('net').createServer().listen(0,'127.0.0.1',function(){console.log(this.address().port)})"],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const port = Number(await new Promise<string>((resolve) => child.stdout.once('data', (d) => resolve(String(d)))));
      expect(listensOn(child.pid as number, port)).toBe(true);
      expect(listensOn(process.pid, port)).toBe(false);
    } finally {
      child.kill();
    }
  });

  it('holds a reserved port until it is released', async () => {
    const reserved = await reservePort();
    expect(listensOn(process.pid, reserved.port)).toBe(true);
    await reserved.release();
    expect(listensOn(process.pid, reserved.port)).toBe(false);
  });

  it('answers false for a process that is gone', () => {
    expect(listensOn(2 ** 22 + 1, 80)).toBe(false);
  });
});

describe('a balancer started on a port chosen beforehand', () => {
  it('is refused, not taken for started, when another server was given its port meanwhile', async () => {
    const port = await listen();
    const config = `defaults\n  mode http\n  timeout connect 1s\n  timeout client 1s\n  timeout server 1s\nfrontend f\n  bind 127.0.0.1:${port}\n  default_backend b\nbackend b\n  server s 127.0.0.1:9\n`;
    await expect(startHaproxy(config, port)).rejects.toThrow(/haproxy exited .*taken by another program/);
  });
});
