// `forgeops sandbox`: prints a working base URL and the demo tokens, and stops cleanly on SIGINT.
import { afterEach, expect, test, vi } from 'vitest';
import { describeSandbox, runSandboxCli } from '../../../src/sandbox/main.js';
import { DEMO_TOKENS } from '../../../src/sandbox/core/demo-accounts.js';

afterEach(() => {
  vi.restoreAllMocks();
});

test('the banner lists every demo token with its user', () => {
  const text = describeSandbox('http://127.0.0.1:9999');
  expect(text).toContain('http://127.0.0.1:9999/api/v4');
  for (const token of Object.values(DEMO_TOKENS)) expect(text).toContain(token);
  expect(text).toMatch(/^maintainer +alice +Alice Martin +fo-maintainer-sandbox-token +alice-sandbox-password$/m);
  expect(text).toMatch(/developer\s+bob\s+Bob Chen\s+fo-developer-sandbox-token/);
});

test('runs until SIGINT, serving the printed address', async () => {
  const printed: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    printed.push(String(chunk));
    return true;
  });
  const running = runSandboxCli({ port: 0 });
  let url: string | undefined;
  for (let i = 0; i < 200 && url === undefined; i++) {
    url = /running at (http:\/\/\S+)/.exec(printed.join(''))?.[1];
    if (url === undefined) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(url).toBeDefined();
  const response = await fetch(`${url}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': DEMO_TOKENS.maintainer } });
  expect(((await response.json()) as { username: string }).username).toBe('alice');
  process.emit('SIGINT');
  await running;
  await expect(fetch(`${url}/api/v4/user`)).rejects.toThrow();
});
