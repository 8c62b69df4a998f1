// `forgeops sandbox`: runs the sandbox in the foreground, prints its address, demo tokens and passwords, stops on a
// signal.
import { DEMO_ACCOUNTS, DEMO_TOKENS, demoPassword } from './core/demo-accounts.js';
import { type ApplicationInput, startSandbox } from './server.js';

/** The address and token table shown at start, as plain text. */
export function describeSandbox(url: string, cliClientId?: string): string {
  const rows = [
    ...DEMO_ACCOUNTS.map((a) => [a.role, a.username, a.name, DEMO_TOKENS[a.role], demoPassword(a.username)]),
    ['scim', '-', 'SCIM provisioning of group acme (Authorization: Bearer)', DEMO_TOKENS.scim, '-'],
  ];
  const header = ['role', 'user', 'name', 'token', 'password (sign-in page)'];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [
    `forgeops sandbox running at ${url}`,
    `  API:  ${url}/api/v4   SCIM: ${url}/api/scim/v2   OAuth: ${url}/.well-known/oauth-authorization-server`,
    `  try:  curl -H 'PRIVATE-TOKEN: ${DEMO_TOKENS.developer}' ${url}/api/v4/projects/acme%2Fweb/pipelines`,
    ...(cliClientId
      ? [`  sign the terminal in: CODEHOST_URL=${url} FORGEOPS_CLI_CLIENT_ID=${cliClientId} forgeops login`]
      : []),
    '',
    line(header),
    ...rows.map(line),
    '',
    'Press Ctrl+C to stop.',
  ].join('\n');
}

export async function runSandboxCli(options: {
  port?: number;
  host?: string;
  /** The terminal's public application, so that `forgeops login` can sign in to this sandbox. */
  cliApplication?: ApplicationInput;
}): Promise<void> {
  const sandbox = await startSandbox({
    port: options.port,
    host: options.host,
    log: (line) => process.stderr.write(`${line}\n`),
    applications: options.cliApplication ? [options.cliApplication] : [],
  });
  process.stdout.write(`${describeSandbox(sandbox.url, sandbox.applications[0]?.uid)}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await sandbox.close();
}
