// The environment (and an optional .env file) → one validated Config object; a bad value names its variable.
import { config as loadDotenv } from 'dotenv';
import { z } from 'zod';
import { AREAS } from './operations/define.js';

const flag = (name: string) =>
  z.enum(['true', 'false', '1', '0', 'yes', 'no', '']).optional()
    .transform((v) => v === 'true' || v === '1' || v === 'yes')
    .describe(name);

const positiveInt = (fallback: number) =>
  z.string().optional().transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) {
      ctx.addIssue({ code: 'custom', message: `must be a whole number, got '${v}'` });
      return z.NEVER;
    }
    return n;
  });

const httpUrl = z.string().optional().transform((v, ctx) => {
  if (v === undefined || v.trim() === '') return undefined;
  try {
    const url = new URL(v.trim());
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.toString().replace(/\/+$/, '');
  } catch {
    // fall through to the issue below
  }
  ctx.addIssue({ code: 'custom', message: `must be an http(s) URL such as https://code.example.com, got '${v}'` });
  return z.NEVER;
});

const list = z.string().optional()
  .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean));

/** Every variable forgeops reads, with its meaning; the README's configuration table is written from this. */
export const ENVIRONMENT = z.object({
  CODEHOST_URL: httpUrl.describe('Base URL of the code hosting service (the API is under /api/v4). Unset: the embedded sandbox.'),
  CODEHOST_TOKEN: z.string().optional().describe('Personal access token sent as PRIVATE-TOKEN.'),
  CODEHOST_SCIM_TOKEN: z.string().optional().describe('Bearer token for the SCIM API.'),
  CODEHOST_CA_FILE: z.string().optional().describe('PEM file of a private certificate authority to trust.'),
  CODEHOST_TIMEOUT_MS: positiveInt(30_000).describe('Per-request timeout in milliseconds (default 30000).'),
  CODEHOST_MAX_RETRIES: positiveInt(3).describe('Retries of reads on 429/502/503/504 and connection errors (default 3).'),
  FORGEOPS_HOST: z.string().optional().default('127.0.0.1').describe('Address `serve` binds to (default 127.0.0.1).'),
  FORGEOPS_PORT: positiveInt(8750).describe('Port `serve` listens on (default 8750).'),
  FORGEOPS_MCP_TOKEN: z.string().optional()
    .describe('Bearer token MCP clients must send to `serve`; required when bound to a non-loopback address.'),
  FORGEOPS_ALLOWED_ORIGINS: list.describe('Extra browser origins allowed to call `serve` (comma-separated).'),
  FORGEOPS_READ_ONLY: flag('Only read operations are offered and run.'),
  FORGEOPS_TOOLSETS: list.describe('API areas to expose as tools (comma-separated; default all).'),
  FORGEOPS_CONFIRM_WITHOUT_ELICITATION: z.enum(['refuse', 'allow']).optional().default('refuse')
    .describe("What a destructive call does when the MCP client cannot ask its human: 'refuse' (default) or 'allow'."),
  FORGEOPS_MAX_RESULT_CHARS: positiveInt(60_000).describe('Cap on the size of one tool result in characters (default 60000).'),
  FORGEOPS_LOG_LEVEL: z.enum(['error', 'warn', 'info', 'debug']).optional().default('info')
    .describe('Log level of the stderr log (default info).'),
});

export type Environment = z.infer<typeof ENVIRONMENT>;

export interface Config {
  codehost: {
    /** Undefined: no service configured, so the embedded sandbox is used. */
    url?: string;
    token?: string;
    scimToken?: string;
    caFile?: string;
    timeoutMs: number;
    maxRetries: number;
  };
  server: { host: string; port: number; mcpToken?: string; allowedOrigins: string[] };
  policy: { readOnly: boolean; toolsets: string[]; confirmWithoutElicitation: 'refuse' | 'allow' };
  maxResultChars: number;
  logLevel: 'error' | 'warn' | 'info' | 'debug';
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Validates an environment; throws ConfigError whose message is one line naming the variable(s). */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const result = ENVIRONMENT.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')} ${i.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const e = result.data;
  const unknownToolsets = e.FORGEOPS_TOOLSETS.filter((t) => !(AREAS as readonly string[]).includes(t));
  if (unknownToolsets.length > 0) {
    throw new ConfigError(`invalid configuration: FORGEOPS_TOOLSETS has unknown toolset(s) ${unknownToolsets.join(', ')}; known: ${AREAS.join(', ')}`);
  }
  return {
    codehost: {
      url: e.CODEHOST_URL,
      token: e.CODEHOST_TOKEN || undefined,
      scimToken: e.CODEHOST_SCIM_TOKEN || undefined,
      caFile: e.CODEHOST_CA_FILE || undefined,
      timeoutMs: e.CODEHOST_TIMEOUT_MS,
      maxRetries: e.CODEHOST_MAX_RETRIES,
    },
    server: {
      host: e.FORGEOPS_HOST,
      port: e.FORGEOPS_PORT,
      mcpToken: e.FORGEOPS_MCP_TOKEN || undefined,
      allowedOrigins: e.FORGEOPS_ALLOWED_ORIGINS,
    },
    policy: {
      readOnly: e.FORGEOPS_READ_ONLY,
      toolsets: e.FORGEOPS_TOOLSETS,
      confirmWithoutElicitation: e.FORGEOPS_CONFIRM_WITHOUT_ELICITATION,
    },
    maxResultChars: e.FORGEOPS_MAX_RESULT_CHARS,
    logLevel: e.FORGEOPS_LOG_LEVEL,
  };
}

/** Reads .env quietly (its messages would corrupt a stdio MCP channel) and then the process environment. */
export function loadConfig(): Config {
  loadDotenv({ quiet: true });
  return parseConfig(process.env);
}
