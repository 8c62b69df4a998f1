// The embedded sandbox never keeps a port it must avoid (the one its host process is about to listen on).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from 'vitest';
import { listenAvoiding } from '../../../src/sandbox/server.js';

test('a picked port that must be avoided is given back and another one picked', async () => {
  const server = createServer((_req, res) => res.end('sandbox'));
  // The first port the system hands out becomes one to avoid, as if the host were about to bind it.
  const avoid: number[] = [];
  const listen = server.listen.bind(server);
  server.listen = ((...args: Parameters<typeof server.listen>) => {
    server.once('listening', () => {
      if (avoid.length === 0) avoid.push((server.address() as AddressInfo).port);
    });
    return listen(...args);
  }) as typeof server.listen;
  try {
    const port = await listenAvoiding(server, '127.0.0.1', 0, avoid);
    expect(avoid).toHaveLength(1);
    expect(port).not.toBe(avoid[0]);
    expect((server.address() as AddressInfo).port).toBe(port);
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('sandbox');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
