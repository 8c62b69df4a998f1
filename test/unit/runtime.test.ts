// The embedded sandbox runtime (npm start without CODEHOST_URL): forgeops's own two OAuth applications registered on
// it with their documented client ids, the confidential one's secret handed over in process, one log line naming
// them without it; and the address a browser reaches forgeops by.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { forgeopsUrl } from '../../src/http/addresses.js';
import { createRuntime } from '../../src/runtime.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { codeFlowTokens, postForm } from './sandbox/oauth-browser.js';

describe('the embedded sandbox runtime', () => {
  it("registers forgeops's two applications, hands over the secret in process, and names them in one log line without it", async () => {
    const lines: string[] = [];
    const log = createLogger('info', [], (line) => lines.push(line) > 0);
    const runtime = await createRuntime(parseConfig({}), log, { publicUrl: 'http://127.0.0.1:8750' });
    try {
      const info = await runtime.sandbox!();
      const { forgeops, cli } = info.applications;
      expect(forgeops).toEqual({
        name: 'forgeops',
        client_id: 'forgeops-sandbox',
        client_secret: expect.stringMatching(/^gloas-[0-9a-f]{64}$/),
        redirect_uris: ['http://127.0.0.1:8750/oauth/callback'],
        scopes: ['api', 'read_api', 'read_user', 'openid'],
      });
      expect(cli).toEqual({
        name: 'forgeops-cli',
        client_id: 'forgeops-cli-sandbox',
        redirect_uris: ['http://127.0.0.1/callback'],
        scopes: ['api', 'read_api', 'read_user', 'openid'],
      });
      const named = lines.filter((line) => line.includes('sandbox OAuth applications'));
      expect(named).toHaveLength(1);
      expect(named[0]).toContain('forgeops (client id forgeops-sandbox');
      expect(named[0]).toContain('forgeops-cli (client id forgeops-cli-sandbox');
      expect(lines.join('')).not.toContain(forgeops.client_secret);

      // The secret is the one the provider checks: the code flow of the confidential application goes through.
      const sandbox = { url: info.url } as Sandbox;
      const client = { id: forgeops.client_id, secret: forgeops.client_secret };
      const tokens = await codeFlowTokens(sandbox, client, forgeops.redirect_uris[0], { scope: 'api' });
      expect(tokens.status).toBe(200);
      // The terminal's public client starts a device grant by its client id alone.
      const device = await postForm(sandbox, '/oauth/authorize_device', { client_id: cli.client_id, scope: 'api' });
      expect(device.status).toBe(200);
    } finally {
      await runtime.close();
    }
  });
});

describe('forgeopsUrl', () => {
  it.each([
    ['127.0.0.1', 8750, 'http://127.0.0.1:8750'],
    ['0.0.0.0', 8750, 'http://127.0.0.1:8750'],
    ['::', 9000, 'http://127.0.0.1:9000'],
    ['::1', 8750, 'http://[::1]:8750'],
    ['forgeops.internal', 80, 'http://forgeops.internal:80'],
    // A free port is known only once listening; a loopback redirect matches on any port.
    ['127.0.0.1', 0, 'http://127.0.0.1'],
  ])('%s:%i is reached at %s', (host, port, url) => {
    expect(forgeopsUrl(host, port)).toBe(url);
  });
});
