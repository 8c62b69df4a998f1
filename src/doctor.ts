// `forgeops doctor` and the start-up service check: is the configuration sound, the service reachable, the token good?
import { ApiError, isTlsFailure } from './http/errors.js';
import { HttpClient } from './http/client.js';
import type { TokenSource } from './http/types.js';
import type { Config, ConfigSource } from './config.js';
import type { CredentialsFile } from './identity/credentials-file.js';
import { withoutCredentials } from './text/shown-url.js';
import type { Check, CheckStatus } from './doctor-check.js';
import { probeService } from './health.js';

export type { Check } from './doctor-check.js';

const MARK: Record<CheckStatus, string> = { ok: '✓', fail: '✗', warn: '!', info: '-' };

/** Quick enough to run at every start, patient enough for a slow VPN. */
const PROBE_TIMEOUT_MS = 10_000;

/** What forgeops serve answers on paths other than /mcp: pointing CODEHOST_URL at forgeops itself shows up so. */
const FORGEOPS_ITSELF = /MCP endpoint is \/mcp/;

/** One check as a line or two; a URL in it is shown without its user name and password, wherever it came from. */
export function formatCheck(check: Check): string {
  return withoutCredentials(`${MARK[check.status]} ${check.what}${check.fix ? `\n    fix: ${check.fix}` : ''}`);
}

/** What the service's failures mean for the person who configured it. */
function unreachable(error: ApiError, address: string): Check {
  const why = error.serviceMessage.replace(/ \(service at [^)]*\)$/, '');
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') {
    return {
      status: 'fail',
      what: `${address}: the host name does not resolve (${why})`,
      fix: 'check the host name in CODEHOST_URL',
    };
  }
  if (isTlsFailure(error)) {
    return {
      status: 'fail',
      what: `${address}: its TLS certificate could not be verified (${why})`,
      fix: "if the service uses a private CA, set CODEHOST_CA_FILE to that CA's PEM file",
    };
  }
  if (error.kind === 'timeout') {
    return {
      status: 'fail',
      what: `${address}: no answer within ${PROBE_TIMEOUT_MS / 1000} s`,
      fix: 'check the address, the network and any proxy (HTTPS_PROXY)',
    };
  }
  return {
    status: 'fail',
    what: `${address} is not reachable (${why})`,
    fix: 'check the address and port in CODEHOST_URL, and that the service is running',
  };
}

/**
 * Is the service at this address, and does the token work? An anonymous GET /projects tells the service (a JSON
 * list, or its JSON 401) from a wrong path prefix or another server; GET /user tells who the token acts as.
 */
async function checkService(client: HttpClient, address: string, tokenSetting: string | undefined): Promise<Check[]> {
  const api = `${client.baseUrl}/api/v4`;
  try {
    const res = await probeService(client, PROBE_TIMEOUT_MS);
    if (!Array.isArray(res.data)) {
      return [
        {
          status: 'fail',
          what: `${address} does not look like the service: GET ${api}/projects answered ${res.headers['content-type'] ?? 'something'} that is not the service's JSON`,
          fix: "set CODEHOST_URL to the service's address (its API answers under /api/v4)",
        },
      ];
    }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.kind !== 'http') return [unreachable(error, address)];
    if (FORGEOPS_ITSELF.test(error.serviceMessage)) {
      return [
        {
          status: 'fail',
          what: `${address} is a forgeops MCP server, not the code hosting service`,
          fix: "set CODEHOST_URL to the code hosting service's address",
        },
      ];
    }
    // A private instance may refuse anonymous listing; its refusal is still the service's own JSON.
    if (!(error.jsonBody && (error.status === 401 || error.status === 403))) {
      return [
        {
          status: 'fail',
          what: `${address} does not look like the service: GET ${api}/projects answered ${error.message}`,
          fix: "check the path prefix in CODEHOST_URL: the service's API must answer at CODEHOST_URL/api/v4",
        },
      ];
    }
  }
  const checks: Check[] = [{ status: 'ok', what: `${address} is reachable and answers as the service's API` }];
  if (!tokenSetting) {
    checks.push({
      status: 'warn',
      what: 'CODEHOST_TOKEN is not set and nobody is signed in (forgeops login): only public data can be read',
      fix: 'run forgeops login, or set CODEHOST_TOKEN to a personal access token',
    });
    return checks;
  }
  try {
    const me = (
      await client.request<Record<string, unknown>>({
        method: 'GET',
        path: '/user',
        idempotent: true,
        timeoutMs: PROBE_TIMEOUT_MS,
      })
    ).data;
    const admin = me.is_admin === true ? 'an administrator' : 'not an administrator';
    checks.push({
      status: 'ok',
      what: `${tokenSetting} acts as ${String(me.username)} (${String(me.name)}), ${admin}`,
    });
  } catch (error) {
    const signedIn = tokenSetting.includes('forgeops login');
    // A sign-in that can no longer be refreshed says so itself (NotSignedInError), before any request is sent.
    if (signedIn && error instanceof Error && error.name === 'NotSignedInError') {
      checks.push({ status: 'fail', what: error.message, fix: 'run forgeops login' });
      return checks;
    }
    if (!(error instanceof ApiError)) throw error;
    checks.push({
      status: 'fail',
      what: `${tokenSetting} is refused: ${error.message}`,
      fix:
        error.status === 401
          ? signedIn
            ? 'run forgeops login again'
            : `create a new personal access token and set ${tokenSetting}`
          : "check the token's scopes",
    });
  }
  return checks;
}

/** The SCIM token, checked against one group's provisioned users (SCIM tokens belong to a group). */
async function checkScim(client: HttpClient, group: string | undefined): Promise<Check> {
  if (!group) {
    return {
      status: 'info',
      what: 'CODEHOST_SCIM_TOKEN is set; not checked (name its group: forgeops doctor --scim-group <group path>)',
    };
  }
  try {
    await client.request({
      method: 'GET',
      path: `/api/scim/v2/groups/${encodeURIComponent(group)}/Users`,
      idempotent: true,
      timeoutMs: PROBE_TIMEOUT_MS,
    });
    return { status: 'ok', what: `CODEHOST_SCIM_TOKEN works for group ${group}` };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return {
      status: 'fail',
      what: `CODEHOST_SCIM_TOKEN is refused for group ${group}: ${error.message}`,
      fix: "create a new SCIM token in the group's settings",
    };
  }
}

export function configurationChecks(config: Config, source: ConfigSource): Check[] {
  const checks: Check[] = [];
  checks.push(
    source.envFile
      ? {
          status: 'ok',
          what: `configuration: the environment and ${source.envFile.path} (${source.envFile.variables} variables from the file)`,
        }
      : { status: 'ok', what: 'configuration: the environment only' },
  );
  if (source.ignoredDotenv) {
    checks.push({
      status: 'warn',
      what: `${source.ignoredDotenv} was not read`,
      fix: `name it to use it: --env-file ${source.ignoredDotenv}`,
    });
  }
  const { httpProxy, httpsProxy, noProxy } = config.proxy;
  // A proxy's user name and password are legitimate in its URL, and never shown.
  checks.push(
    httpProxy || httpsProxy
      ? {
          status: 'info',
          what: withoutCredentials(
            `proxy: ${[httpProxy && `HTTP_PROXY ${httpProxy}`, httpsProxy && `HTTPS_PROXY ${httpsProxy}`].filter(Boolean).join(', ')}${noProxy ? `, NO_PROXY ${noProxy}` : ''}`,
          ),
        }
      : { status: 'info', what: 'proxy: none' },
  );
  checks.push({
    status: 'info',
    what: config.codehost.caFile
      ? `CA: the public roots and CODEHOST_CA_FILE ${config.codehost.caFile}`
      : 'CA: the public roots',
  });
  if (config.policy.readOnly)
    checks.push({ status: 'info', what: 'read-only mode (FORGEOPS_READ_ONLY): only reads are offered' });
  return checks;
}

function serviceClient(config: Config, tokenSource?: TokenSource): HttpClient {
  return new HttpClient({
    baseUrl: config.codehost.url as string,
    token: config.codehost.token,
    tokenSource,
    scimToken: config.codehost.scimToken,
    caFile: config.codehost.caFile,
    proxy: config.proxy,
    retry: { maxRetries: 0 },
  });
}

/**
 * The service check `serve` and `mcp` run at start, in the background so start-up does not wait for it: a wrong
 * setup shows in the log at once, in one line naming the fix, instead of at the first tool call.
 */
export async function checkServiceAtStart(config: Config, warn: (line: string) => void): Promise<void> {
  if (!config.codehost.url) return;
  let client: HttpClient | undefined;
  try {
    client = serviceClient(config);
    const failed = (
      await checkService(
        client,
        `CODEHOST_URL ${config.codehost.url}`,
        config.codehost.token ? 'CODEHOST_TOKEN' : undefined,
      )
    ).find((c) => c.status === 'fail');
    if (failed)
      warn(
        withoutCredentials(
          `service check: ${failed.what}${failed.fix ? `; fix: ${failed.fix}` : ''} (forgeops doctor shows the full report)`,
        ),
      );
  } catch (error) {
    warn(`service check: ${(error as Error).message} (forgeops doctor shows the full report)`);
  } finally {
    await client?.close();
  }
}

/** The whole report; the exit status is 1 when any check failed. */
export async function runDoctor(
  config: Config,
  source: ConfigSource,
  options: { scimGroup?: string; write: (line: string) => void; credentials?: CredentialsFile },
): Promise<number> {
  const all: Check[] = [];
  const report = (checks: Check[]) => {
    for (const check of checks) options.write(`${formatCheck(check)}\n`);
    all.push(...checks);
  };
  report(configurationChecks(config, source));
  // The sign-in's checks bring the OAuth code: loaded here, not by the start-up check every `mcp` runs.
  const { signInChecks, terminalSignIn } = await import('./doctor-sign-in.js');
  report(signInChecks(config));
  let client: HttpClient;
  let signedIn: Awaited<ReturnType<typeof terminalSignIn>>;
  let address: string;
  let closeSandbox: (() => Promise<void>) | undefined;
  let token = config.codehost.token;
  const scimToken = config.codehost.scimToken;
  try {
    if (config.codehost.url) {
      address = `CODEHOST_URL ${config.codehost.url}`;
      signedIn = await terminalSignIn(config, options.credentials);
      client = serviceClient(config, signedIn?.source);
    } else {
      const { startSandbox } = await import('./sandbox/server.js');
      const sandbox = await startSandbox({ port: 0 });
      closeSandbox = () => sandbox.close();
      address = `the embedded sandbox ${sandbox.url} (no CODEHOST_URL set)`;
      token ??= sandbox.tokens.maintainer;
      client = new HttpClient({ baseUrl: sandbox.url, token, scimToken, proxy: {}, retry: { maxRetries: 0 } });
    }
  } catch (error) {
    report([
      {
        status: 'fail',
        what: `cannot set up the client: ${(error as Error).message}`,
        fix: /credentials/.test((error as Error).message)
          ? 'make the credentials file readable by you alone (chmod 600), or run forgeops login again'
          : 'check CODEHOST_CA_FILE',
      },
    ]);
    return 1;
  }
  try {
    const tokenSetting = config.codehost.token
      ? 'CODEHOST_TOKEN'
      : signedIn
        ? `the sign-in of @${signedIn.username} (forgeops login)`
        : token
          ? "the sandbox's demo token"
          : undefined;
    report(await checkService(client, address, tokenSetting));
    if (scimToken && all.every((c) => c.status !== 'fail')) {
      report([await checkScim(client, options.scimGroup)]);
    }
  } finally {
    await client.close();
    await closeSandbox?.();
  }
  const failed = all.filter((c) => c.status === 'fail').length;
  options.write(failed ? `\n${failed} check${failed === 1 ? '' : 's'} failed.\n` : '\nEverything needed works.\n');
  return failed ? 1 : 0;
}
