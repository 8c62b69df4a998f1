// Committed snapshot of every tool's name, title, effect and input JSON Schema, so any change to a tool shows in review.
import { expect, it } from 'vitest';
import { z } from 'zod';
import { operations } from '../../../src/operations/index.js';

it('matches the committed tool schemas (run vitest -u after an intended change)', async () => {
  const tools = Object.fromEntries(
    [...operations]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((op) => [op.name, {
        title: op.title,
        effect: op.effect,
        idempotent: op.idempotent,
        schema: z.toJSONSchema(op.input, { io: 'input' }),
      }]),
  );
  await expect(`${JSON.stringify(tools, null, 2)}\n`).toMatchFileSnapshot('__snapshots__/tool-schemas.json');
});
