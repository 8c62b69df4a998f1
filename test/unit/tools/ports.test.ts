// Ports chosen beforehand: held until their program starts, a program's only when its own socket listens there, not
// when the port merely answers (the balancers' and the sessions bench's start-up rests on both), and a program started
// again on a new port when another was given its port first (onFreePort), and only then.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listensOn, onFreePort, reservePort } from '../../../tools/ports.mjs';
import { startHaproxy } from '../../helpers/balancers.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Listens on `port` (0: one the system gives) until the test ends; rejects as a program does when it is taken. */
async function listen(port = 0): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  servers.push(server);
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

describe('onFreePort', () => {
  it('starts again on a new port when another program was given the chosen one first, and answers that start', async () => {
    const tried: number[] = [];
    const started = await onFreePort(async (port) => {
      tried.push(port);
      // The race, made certain: another program takes the first port between its choice and this start's bind.
      if (tried.length === 1) await listen(port);
      return { port: await listen(port) };
    });
    expect(tried).toHaveLength(2);
    expect(tried[1]).not.toBe(tried[0]);
    expect(started).toEqual({ port: tried[1] });
    expect(listensOn(process.pid, tried[1])).toBe(true);
  });

  it.each([
    'port 42809 on 127.0.0.1 is in use; pick another with --port',
    'Could not create server TCP listening socket 127.0.0.1:42809: bind: Address already in use',
  ])('takes a child\'s words for a taken port too: "%s"', async (message) => {
    let starts = 0;
    const answer = await onFreePort(async () => {
      starts++;
      if (starts === 1) throw new Error(`serve exited before it was ready:\n${message}`);
      return 'started';
    });
    expect(answer).toBe('started');
    expect(starts).toBe(2);
  });

  it('does not start again after any other failure: that error is thrown at once', async () => {
    let starts = 0;
    const failure = new Error('redis-server exited with 1 before answering: bad config');
    await expect(
      onFreePort(async () => {
        starts++;
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(starts).toBe(1);
  });

  it.each([1, 2])('starts at most %i times, then throws the last failure', async (attempts) => {
    const tried: number[] = [];
    const failing = onFreePort(async (port) => {
      tried.push(port);
      throw new Error(`start ${tried.length}: listen EADDRINUSE: address already in use 127.0.0.1:${port}`);
    }, attempts);
    await expect(failing).rejects.toThrow(`start ${attempts}: listen EADDRINUSE`);
    expect(tried).toHaveLength(attempts);
  });

  it('starts three times by default', async () => {
    let starts = 0;
    await expect(
      onFreePort(async () => {
        starts++;
        throw new Error('EADDRINUSE');
      }),
    ).rejects.toThrow('EADDRINUSE');
    expect(starts).toBe(3);
  });
});

describe('a balancer started on a port chosen beforehand', () => {
  it('is refused, not taken for started, when another server was given its port meanwhile', async () => {
    const port = await listen();
    const config = `defaults\n  mode http\n  timeout connect 1s\n  timeout client 1s\n  timeout server 1s\nfrontend f\n  bind 127.0.0.1:${port}\n  default_backend b\nbackend b\n  server s 127.0.0.1:9\n`;
    await expect(startHaproxy(config, port)).rejects.toThrow(/haproxy exited .*taken by another program/);
  });
});
