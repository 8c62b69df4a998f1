// Committed snapshot of every tool as MCP clients see it, plus route, pagination and response, so any change shows in review.
// One file per tool, so two changes to different tools never touch the same file.
import { existsSync, readdirSync, unlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Operation } from '../../../src/operations/engine/define.js';
import { toolDescriptor } from '../../../src/mcp/tools.js';
import { operations } from '../../../src/operations/index.js';

const SNAPSHOT_DIR = '__snapshots__/tools/';
const UPDATE_HINT = 'run `npx vitest run test/unit/operations/schemas.test.ts -u`';

const snapshotPath = (toolName: string) => `${SNAPSHOT_DIR}${toolName}.json`;
const onDisk = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

function publishedSchema(op: Operation) {
  const tool = toolDescriptor(op);
  return {
    route: `${op.method} ${op.path}`,
    effect: op.effect,
    ...(op.pagination ? { pagination: op.pagination } : {}),
    response: op.response,
    description: tool.description,
    annotations: tool.annotations,
    inputSchema: tool.inputSchema,
  };
}

const isUpdating = () => expect.getState().snapshotState.snapshotUpdateState === 'all';
const toolNames = new Set([...operations].map((op) => op.name));

describe(`tool schema snapshots (${UPDATE_HINT} after an intended change)`, () => {
  for (const op of [...operations].sort((a, b) => a.name.localeCompare(b.name))) {
    it(op.name, async () => {
      // Outside `-u`, vitest writes a missing file snapshot and passes (unless CI is set): a deleted or uncommitted
      // snapshot would then compare against nothing. Only an explicit update may create it.
      const file = snapshotPath(op.name);
      if (!isUpdating()) {
        expect(existsSync(onDisk(file)), `${file} is missing: ${UPDATE_HINT}`).toBe(true);
      }
      await expect(`${JSON.stringify(publishedSchema(op), null, 2)}\n`).toMatchFileSnapshot(file);
    });
  }

  it('has no snapshot file for a tool that no longer exists', () => {
    const files = existsSync(onDisk(SNAPSHOT_DIR)) ? readdirSync(onDisk(SNAPSHOT_DIR)) : [];
    const stale = files
      .filter((file) => !(file.endsWith('.json') && toolNames.has(file.slice(0, -'.json'.length))))
      .map((file) => `${SNAPSHOT_DIR}${file}`);
    // An update removes them, as vitest removes obsolete inline snapshots; any other run must not let them linger.
    if (isUpdating()) {
      for (const file of stale) unlinkSync(onDisk(file));
      return;
    }
    expect(stale, `snapshot files without a tool: ${stale.join(', ')} (${UPDATE_HINT} to remove them)`).toEqual([]);
  });
});
