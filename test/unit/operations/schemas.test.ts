// Committed snapshot of every tool as MCP clients see it, plus route, pagination and response, so any change shows in review.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { toolDescriptor } from '../../../src/mcp/tools.js';
import { operations } from '../../../src/operations/index.js';

const SNAPSHOT = '__snapshots__/tool-schemas.json';

it('matches the committed tool schemas (run `npx vitest run test/unit/operations -u` after an intended change)', async () => {
  // Outside `-u`, vitest writes a missing file snapshot and passes (unless CI is set): a deleted or uncommitted
  // snapshot would then compare against nothing. Only an explicit update may create it.
  const updating = expect.getState().snapshotState.snapshotUpdateState === 'all';
  if (!updating) {
    expect(existsSync(fileURLToPath(new URL(SNAPSHOT, import.meta.url))), `${SNAPSHOT} is missing: run with -u to write it`).toBe(true);
  }
  const tools = Object.fromEntries(
    [...operations]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((op) => {
        const tool = toolDescriptor(op);
        return [op.name, {
          route: `${op.method} ${op.path}`,
          effect: op.effect,
          ...(op.pagination ? { pagination: op.pagination } : {}),
          response: op.response,
          description: tool.description,
          annotations: tool.annotations,
          inputSchema: tool.inputSchema,
        }];
      }),
  );
  await expect(`${JSON.stringify(tools, null, 2)}\n`).toMatchFileSnapshot(SNAPSHOT);
});
