// Tool selection: presets, areas and single names, under read-only mode; errors name only what has tools.
import { describe, expect, it } from 'vitest';
import { operations } from '../../../src/operations/index.js';
import { AREAS } from '../../../src/operations/engine/define.js';
import { DEFAULT_OPERATIONS, selectTools, ToolSelectionError } from '../../../src/mcp/toolsets.js';

const names = (toolsets: string[], tools: string[] = [], readOnly = false) =>
  selectTools(operations, { toolsets, tools, readOnly }).operations.map((op) => op.name);

function selectionError(toolsets: string[], tools: string[] = [], readOnly = false): string {
  try {
    selectTools(operations, { toolsets, tools, readOnly });
  } catch (error) {
    expect(error).toBeInstanceOf(ToolSelectionError);
    return (error as Error).message;
  }
  throw new Error('expected a ToolSelectionError');
}

describe('selectTools', () => {
  it('offers every operation with all, and nothing but the meta tools with meta', () => {
    expect(names(['all'])).toEqual(operations.map((op) => op.name));
    expect(selectTools(operations, { toolsets: ['all'], readOnly: false }).meta).toBe(false);
    expect(selectTools(operations, { toolsets: ['meta'], readOnly: false })).toEqual({ operations: [], meta: true });
  });

  it('offers the on-call core with the meta tools by default, when nothing is chosen', () => {
    const chosen = selectTools(operations, { toolsets: [], readOnly: false });
    expect(chosen.meta).toBe(true);
    expect(chosen.operations.map((op) => op.name)).toEqual(
      operations.filter((op) => DEFAULT_OPERATIONS.includes(op.name)).map((op) => op.name),
    );
    expect(names(['default'])).toEqual(chosen.operations.map((op) => op.name));
    // Every name of the preset is a real operation: a renamed one must not silently drop out of the default.
    for (const name of DEFAULT_OPERATIONS) expect(operations.some((op) => op.name === name)).toBe(true);
  });

  it('offers an area by its name, and single tools besides; alone, single tools stand alone', () => {
    expect(names(['releases'])).toEqual(['list_releases', 'get_release', 'create_release', 'update_release']);
    // In the registry's order (areas by name), whatever order they were asked in.
    expect(names(['releases'], ['get_file'])).toEqual([
      'list_releases',
      'get_release',
      'create_release',
      'update_release',
      'get_file',
    ]);
    expect(names([], ['get_file', 'retry_pipeline'])).toEqual(['retry_pipeline', 'get_file']);
    expect(selectTools(operations, { toolsets: [], tools: ['run_operation'], readOnly: false })).toEqual({
      operations: [],
      meta: true,
    });
  });

  it('removes every write in read-only mode', () => {
    const offered = selectTools(operations, { toolsets: ['all'], readOnly: true }).operations;
    expect(offered.length).toBeGreaterThan(0);
    expect(offered.every((op) => op.effect === 'read')).toBe(true);
    expect(names(['releases'], [], true)).toEqual(['list_releases', 'get_release']);
  });

  it('names an unknown toolset and lists the presets and areas', () => {
    const message = selectionError(['pipelines', 'rockets']);
    expect(message).toContain('unknown toolset(s) rockets');
    expect(message).toContain('FORGEOPS_TOOLSETS');
    for (const name of ['default', 'all', 'meta', ...AREAS]) expect(message).toContain(name);
  });

  it('names an unknown tool, and a write asked for in read-only mode as such', () => {
    expect(selectionError([], ['retry_pipelines'])).toContain('unknown tool(s) retry_pipelines');
    expect(selectionError([], ['retry_pipeline'], true)).toContain(
      'retry_pipeline (changes data; read-only mode offers reads only)',
    );
  });

  it('lists only toolsets that have tools', () => {
    // No area is without reads today; a registry of writes alone shows the rule.
    const writes = operations.filter((op) => op.effect !== 'read');
    const message = (() => {
      try {
        selectTools(writes, { toolsets: ['rockets'], readOnly: true });
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    })();
    expect(message).toBe('unknown toolset(s) rockets (FORGEOPS_TOOLSETS or --toolsets); known: default, all, meta');
    expect(() => selectTools(writes, { toolsets: ['pipelines'], readOnly: true })).toThrow(
      /pipelines offer no tools in read-only mode/,
    );
  });
});
