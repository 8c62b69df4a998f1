// The three meta tools' descriptors as plain data, apart from their code, so that choosing and listing tools
// (toolsets.ts, the tool catalog built into the bundle) loads no schema library.
import type { ToolDescriptor } from './tools.js';

/** The most operations one search answers: enough to choose from, few enough to read. */
export const MAX_FIND_RESULTS = 25;
export const DEFAULT_FIND_RESULTS = 8;

export const META_TOOLS: readonly ToolDescriptor[] = [
  {
    name: 'find_operations',
    title: 'Find operations',
    description:
      'Search the code hosting API\'s operations by words (e.g. "retry failed pipeline", "add group member"). ' +
      'Returns names, effects and summaries; then describe_operation for the input schema.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What you want to do, in a few words.' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_FIND_RESULTS,
          description: `Default ${DEFAULT_FIND_RESULTS}.`,
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'describe_operation',
    title: 'Describe operation',
    description: 'The full definition of one operation: what it does, its effect and its input JSON Schema.',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string', description: 'Operation name from find_operations.' } },
      required: ['name'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'run_operation',
    title: 'Run operation',
    description: 'Run one operation with arguments matching its input schema. Destructive calls ask a human first.',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        arguments: { type: 'object', description: "The operation's input; dry_run: true previews a change." },
      },
      required: ['name'],
      additionalProperties: false,
    },
  },
];
