// A user name or password in a URL setting: `serve`, `mcp` and `doctor` refuse to start, in one line that shows
// neither; and every place an address can be shown (banner, /readyz, doctor, logs, client errors) hides them anyway.
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bannerText } from '../../src/banner.js';
import { parseConfig, type Config } from '../../src/config.js';
import { configurationChecks, formatCheck } from '../../src/doctor.js';
import { ReadinessProbe, serviceCheck } from '../../src/health.js';
import { HttpClient } from '../../src/http/client.js';
import { createLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import { silentLogger } from '../../src/log.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const PASSWORD = 'hunter2-s3cret';
const USER = 'deploy-bot';
const WITH_CREDENTIALS = `https://${USER}:${PASSWORD}@127.0.0.1:9/code`;
const bareEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', TMPDIR: tmpdir() };

function expectNoCredentials(text: string): void {
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(USER);
}

describe('the built CLI with CODEHOST_URL carrying credentials', () => {
  it.each([['serve', '--port', '0'], ['mcp'], ['doctor']])(
    '%s refuses to start in one line naming CODEHOST_URL and CODEHOST_TOKEN, showing neither',
    (...args) => {
      const out = spawnSync(process.execPath, [`${root}dist/cli.js`, ...args], {
        cwd: '/',
        env: { ...bareEnv, CODEHOST_URL: WITH_CREDENTIALS },
        encoding: 'utf8',
        timeout: 10_000,
      });
      expect(out.status).toBe(2);
      expect(out.stdout).toBe('');
      expect(out.stderr).toBe(
        'forgeops: invalid configuration: CODEHOST_URL must not carry a user name or password (user:password@): ' +
          "put the token in CODEHOST_TOKEN instead; got 'https://***@127.0.0.1:9/code'\n",
      );
    },
  );
});

describe('every place an address is shown', () => {
  // As if a URL with credentials got past the configuration (a proxy's legitimately carries them).
  const config = {
    ...parseConfig({ CODEHOST_URL: 'https://127.0.0.1:9/code' }),
    proxy: { httpsProxy: `http://${USER}:${PASSWORD}@proxy.internal:3128` },
  } as Config;
  config.codehost.url = WITH_CREDENTIALS;

  it("the banner and the service's name in errors", async () => {
    const runtime = await createRuntime(config, silentLogger);
    expectNoCredentials(runtime.serviceLabel);
    expectNoCredentials(runtime.service.address);
    expectNoCredentials(
      bannerText({ mcpUrl: 'http://127.0.0.1:8750/mcp', serviceLabel: runtime.serviceLabel, config }),
    );
    await runtime.close();
  });

  it('/readyz, which anyone may ask', async () => {
    const failing = {
      request: async () => {
        throw Object.assign(new Error(`connect ECONNREFUSED via ${config.proxy.httpsProxy}`), { kind: 'network' });
      },
    };
    const probe = new ReadinessProbe([serviceCheck(failing, `CODEHOST_URL (${WITH_CREDENTIALS})`)]);
    const answer = await probe.current();
    expect(answer.ready).toBe(false);
    expect(answer.checks.service).toContain('https://***@127.0.0.1:9/code');
    expectNoCredentials(JSON.stringify(answer));
  });

  it("doctor's report", () => {
    const lines = configurationChecks(config, {}).map(formatCheck).join('\n');
    expect(lines).toContain('HTTPS_PROXY http://***@proxy.internal:3128');
    expectNoCredentials(lines);
    expectNoCredentials(formatCheck({ status: 'fail', what: `CODEHOST_URL ${WITH_CREDENTIALS} is not reachable` }));
  });

  it("every log line, in both formats' masking", () => {
    const lines: string[] = [];
    const log = createLogger('debug', [], (line) => {
      lines.push(line);
      return true;
    });
    log.warn(`service check: CODEHOST_URL ${WITH_CREDENTIALS} is not reachable; proxy ${config.proxy.httpsProxy}`);
    expect(lines).toHaveLength(1);
    expectNoCredentials(lines[0]);
  });

  it("the HTTP client's refusal of such a base URL", () => {
    for (const baseUrl of [
      WITH_CREDENTIALS,
      `${USER}:${PASSWORD}@code.example.com`,
      `ftp://${USER}:${PASSWORD}@code.example.com`,
    ]) {
      let message = '';
      try {
        new HttpClient({ baseUrl, proxy: {} });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/baseUrl/);
      expectNoCredentials(message);
    }
  });
});
