// tools/pack-mcpb.mjs: the MCP bundle it writes is a valid zip whose manifest names the registry's tools and an entry
// point inside the archive, and the server unpacked from it runs as an MCPB host would start it, with no node_modules.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { operations } from '../../src/operations/index.js';
import { useSandbox } from '../helpers/mcp.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const env = useSandbox();
const work = mkdtempSync(join(tmpdir(), 'forgeops-mcpb-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every file of a zip, read through its central directory, each checked against its CRC-32. */
function unzip(archive: Buffer): Map<string, Buffer> {
  const end = archive.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(end).toBeGreaterThan(0);
  const count = archive.readUInt16LE(end + 10);
  let at = archive.readUInt32LE(end + 16);
  const files = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    expect(archive.readUInt32LE(at)).toBe(0x02014b50);
    const method = archive.readUInt16LE(at + 10);
    const crc = archive.readUInt32LE(at + 16);
    const size = archive.readUInt32LE(at + 20);
    const nameLength = archive.readUInt16LE(at + 28);
    const extraLength = archive.readUInt16LE(at + 30);
    const commentLength = archive.readUInt16LE(at + 32);
    const local = archive.readUInt32LE(at + 42);
    const name = archive.toString('utf8', at + 46, at + 46 + nameLength);
    expect(archive.readUInt32LE(local)).toBe(0x04034b50);
    const dataStart = local + 30 + archive.readUInt16LE(local + 26) + archive.readUInt16LE(local + 28);
    const raw = archive.subarray(dataStart, dataStart + size);
    const data = method === 8 ? inflateRawSync(raw) : Buffer.from(raw);
    expect(crc32(data), name).toBe(crc);
    files.set(name, data);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}

interface Manifest {
  manifest_version: string;
  name: string;
  version: string;
  server: {
    type: string;
    entry_point: string;
    mcp_config: { command: string; args: string[]; env: Record<string, string> };
  };
  tools: Array<{ name: string; description: string }>;
  user_config: Record<string, { type: string; sensitive?: boolean; default?: unknown }>;
}

let files: Map<string, Buffer>;
let manifest: Manifest;
beforeAll(() => {
  const out = join(work, 'forgeops.mcpb');
  const packed = spawnSync(process.execPath, [`${root}tools/pack-mcpb.mjs`, '--out', out], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(packed.stderr).toBe('');
  expect(packed.status).toBe(0);
  files = unzip(readFileSync(out));
  manifest = JSON.parse(files.get('manifest.json')!.toString('utf8')) as Manifest;
});

/** `${…}` as an MCPB host substitutes it: the unpacked directory and the user's answers. */
function substitute(text: string, dir: string, answers: Record<string, string>): string {
  return text
    .replace(/\$\{__dirname\}/g, dir)
    .replace(/\$\{user_config\.(\w+)\}/g, (_, key: string) => answers[key] ?? '');
}

describe('the MCP bundle (.mcpb)', () => {
  it("has the bundle format's manifest: this package, a node entry point inside the archive, every tool of the registry", () => {
    const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { name: string; version: string };
    expect(manifest).toMatchObject({
      manifest_version: '0.3',
      name: pkg.name,
      version: pkg.version,
      server: { type: 'node' },
    });
    expect(files.has(manifest.server.entry_point)).toBe(true);
    expect(manifest.server.mcp_config.args).toEqual([`\${__dirname}/${manifest.server.entry_point}`, 'mcp']);
    expect(manifest.tools.map((tool) => tool.name)).toEqual(operations.map((op) => op.name));
    expect(manifest.tools.every((tool) => tool.description.length > 0)).toBe(true);
  });

  it('asks for the service and token through user_config, the token as a secret, every env value from a declared field', () => {
    expect(manifest.user_config.codehost_token).toMatchObject({ type: 'string', sensitive: true });
    expect(manifest.user_config.codehost_url.sensitive).toBeFalsy();
    const used = Object.values(manifest.server.mcp_config.env).map(
      (value) => /^\$\{user_config\.(\w+)\}$/.exec(value)?.[1],
    );
    expect(used.every((key) => key !== undefined && key in manifest.user_config)).toBe(true);
    expect(Object.values(manifest.user_config).every((field) => field.default !== undefined)).toBe(true);
    expect(manifest.server.mcp_config.env).toMatchObject({
      CODEHOST_URL: '${user_config.codehost_url}',
      CODEHOST_TOKEN: '${user_config.codehost_token}',
    });
  });

  it('runs unpacked on its own, started as its manifest says, and answers a tool call', async () => {
    const dir = join(work, 'unpacked');
    // The stdio server's compiled copy travels beside the entry point: a host's every start is a stdio start.
    expect(files.has(`${dirname(manifest.server.entry_point)}/mcp.cjs`)).toBe(true);
    for (const [name, data] of files) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), data);
    }
    const answers = {
      codehost_url: env.sandbox.url,
      codehost_token: env.sandbox.tokens.maintainer,
      toolsets: 'pipelines',
      read_only: 'true',
    };
    const config = manifest.server.mcp_config;
    const transport = new StdioClientTransport({
      command: config.command === 'node' ? process.execPath : config.command,
      args: config.args.map((arg) => substitute(arg, dir, answers)),
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        TMPDIR: tmpdir(),
        ...Object.fromEntries(Object.entries(config.env).map(([k, v]) => [k, substitute(v, dir, answers)])),
      },
      cwd: dir,
      stderr: 'pipe',
    });
    const mcp = new Client({ name: 'mcpb-test', version: '1.0.0' });
    await mcp.connect(transport);
    try {
      const names = (await mcp.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(
        operations.filter((op) => op.area === 'pipelines' && op.effect === 'read').map((op) => op.name),
      );
      const result = await mcp.callTool({ name: 'list_pipelines', arguments: { id: 'acme/web', per_page: 1 } });
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { items: unknown[] }).items).toHaveLength(1);
    } finally {
      await mcp.close();
    }
  });
});
