// The audit trail of chat: every write and approved call as one JSON line under FORGEOPS_DATA_DIR (no secrets,
// long text summarised by size and hash), so an operator can answer "who deleted that pipeline, from where".
import { createHash } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../log.js';
import { isSecretName, REDACTED } from '../operations/engine/secrets.js';

export const AUDIT_FILE = 'audit.jsonl';

interface AuditEntry {
  team: string;
  user: string;
  /** The service account the call ran as ('sandbox maintainer' or 'shared read token' when not linked). */
  serviceUser: string;
  channel: string;
  operation: string;
  input: Record<string, unknown>;
  /** Who approved the call (the name is older than the approval vocabulary; kept for readers of the stored log). */
  confirmedBy?: string;
  outcome: 'ok' | 'failed' | 'refused';
  status?: number;
  message?: string;
}

/** Values longer than this are recorded as their size and hash: a file's content is not the audit log's business. */
const MAX_VALUE_CHARS = 200;

function auditInput(value: unknown, key = ''): unknown {
  // Wider than the credentials rule: the audit log needs no key of any kind.
  if ((isSecretName(key) || /key$/i.test(key)) && value !== undefined) return REDACTED;
  if (typeof value === 'string' && value.length > MAX_VALUE_CHARS) {
    return `<${value.length} characters, sha256 ${createHash('sha256').update(value).digest('hex').slice(0, 16)}>`;
  }
  if (Array.isArray(value)) return value.map((v) => auditInput(v, key));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, auditInput(v, k)]));
  }
  return value;
}

export class AuditLog {
  private ready?: Promise<unknown>;

  /** Without a data directory, entries go to the log only. */
  constructor(
    private readonly dataDir: string | undefined,
    private readonly log: Logger,
  ) {}

  async record(entry: AuditEntry): Promise<void> {
    const line = { at: new Date().toISOString(), ...entry, input: auditInput(entry.input) };
    this.log.info(
      `audit: ${entry.team}/${entry.user} as ${entry.serviceUser} in ${entry.channel}: ${entry.operation} ${entry.outcome}`,
    );
    if (!this.dataDir) return;
    this.ready ??= mkdir(this.dataDir, { recursive: true, mode: 0o700 });
    try {
      await this.ready;
      await appendFile(join(this.dataDir, AUDIT_FILE), `${JSON.stringify(line)}\n`, { mode: 0o600 });
    } catch (error) {
      this.log.error(`audit: could not write ${AUDIT_FILE}: ${(error as Error).message}`);
    }
  }
}
