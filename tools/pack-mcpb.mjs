// Packs the built CLI into an MCP bundle (.mcpb: a zip with the bundle format's own manifest.json) that Claude Desktop
// and other MCPB hosts install with one click. Run after `npm run build`: node tools/pack-mcpb.mjs [--out file.mcpb]
// The esbuild bundle in dist/ needs no node_modules, so the archive is the bundle, a package.json and the manifest.
// (The top-level manifest.json of this repository is the Slack app's; this one lives only inside the archive.)
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, deflateRawSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const MANIFEST_VERSION = '0.3';
const SERVER_DIR = 'server';

function fail(message) {
  process.stderr.write(`pack-mcpb: ${message}\n`);
  process.exit(1);
}

function outputPath(args, version) {
  const at = args.indexOf('--out');
  if (at === -1) return join(root, `forgeops-${version}.mcpb`);
  if (!args[at + 1]) fail('--out needs a file name');
  return resolve(args[at + 1]);
}

/**
 * The files of the built CLI an MCPB host runs: dist/cli.js, its chunks, the stdio server's compiled copy
 * (src/cli/compiled-copy.ts) and the triage view, without source maps.
 */
function bundleFiles() {
  const files = [join(dist, 'cli.js'), join(dist, 'mcp.cjs')];
  const chunks = join(dist, 'chunks');
  for (const name of readdirSync(chunks).sort()) if (name.endsWith('.js')) files.push(join(chunks, name));
  // The triage view's page, which the server reads when a host that renders MCP Apps asks for it.
  files.push(join(dist, 'apps', 'triage.html'));
  return files.map((file) => ({
    name: `${SERVER_DIR}/${relative(dist, file).split(sep).join('/')}`,
    data: readFileSync(file),
  }));
}

/** Each operation as the manifest lists tools: name and description, from the same catalog tools/list is served from. */
async function toolList() {
  const { operations } = await import(join(dist, 'operations/index.js'));
  const { catalogData } = await import(join(dist, 'mcp/catalog.js'));
  return catalogData(operations).map(({ descriptor }) => ({
    name: descriptor.name,
    description: descriptor.description,
  }));
}

function manifest(pkg, tools) {
  const entryPoint = `${SERVER_DIR}/cli.js`;
  return {
    manifest_version: MANIFEST_VERSION,
    name: pkg.name,
    display_name: 'forgeops',
    version: pkg.version,
    description: pkg.description,
    long_description:
      'Every action of the code hosting service as an MCP tool. A destructive call runs only once a human has ' +
      'approved that exact call (MCP elicitation); a client that cannot ask gets a refusal naming the call. ' +
      'Leave the service URL empty to try it against the embedded sandbox and its demo data.',
    author: { name: typeof pkg.author === 'string' ? pkg.author : (pkg.author?.name ?? 'forgeops contributors') },
    license: pkg.license,
    keywords: ['code hosting', 'ci', 'pipelines', 'releases', 'merge requests'],
    server: {
      type: 'node',
      entry_point: entryPoint,
      mcp_config: {
        command: 'node',
        args: [`\${__dirname}/${entryPoint}`, 'mcp'],
        // Every value has a default in user_config, so a host never passes an unfilled placeholder; empty means unset.
        env: {
          CODEHOST_URL: '${user_config.codehost_url}',
          CODEHOST_TOKEN: '${user_config.codehost_token}',
          FORGEOPS_TOOLSETS: '${user_config.toolsets}',
          FORGEOPS_READ_ONLY: '${user_config.read_only}',
        },
      },
    },
    tools,
    tools_generated: false,
    compatibility: { platforms: ['darwin', 'win32', 'linux'], runtimes: { node: pkg.engines?.node ?? '>=20.19' } },
    user_config: {
      codehost_url: {
        type: 'string',
        title: 'Service URL',
        required: false,
        default: '',
        description:
          'Address of your code hosting service, e.g. https://code.example.com (the API is under /api/v4). Empty: the embedded sandbox with demo data.',
      },
      codehost_token: {
        type: 'string',
        title: 'Access token',
        required: false,
        default: '',
        sensitive: true,
        description: 'Your personal access token for the service (sent as PRIVATE-TOKEN). Empty: public data only.',
      },
      toolsets: {
        type: 'string',
        title: 'Toolsets',
        required: false,
        default: '',
        description:
          'Which API areas to offer as tools, comma-separated (e.g. pipelines,releases). Empty: the default.',
      },
      read_only: {
        type: 'boolean',
        title: 'Read-only',
        required: false,
        default: false,
        description: 'Offer and run only tools that read.',
      },
    },
  };
}

// ---- a small zip writer (stored names in UTF-8, deflated data), so packing needs no dependency ----
/** A fixed time for every entry (1980-01-01 00:00, the earliest DOS time): the same build packs to the same bytes. */
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
const UTF8_NAMES = 0x0800;
const DEFLATE = 8;
const VERSION = 20;
/** "Made by" Unix (3), so the archive's file modes (rw-r--r--) are read as such. */
const MADE_BY_UNIX = (3 << 8) | VERSION;
const FILE_MODE = 0o100644;

/**
 * The fields a local file header and its central directory entry share, in the same order: the version needed to
 * extract, flags, method, time, date, CRC-32, both sizes and the name's length. 26 bytes from `at`.
 */
function writeSharedFields(header, at, { crc, compressedSize, size, nameLength }) {
  header.writeUInt16LE(VERSION, at);
  header.writeUInt16LE(UTF8_NAMES, at + 2);
  header.writeUInt16LE(DEFLATE, at + 4);
  header.writeUInt16LE(DOS_TIME, at + 6);
  header.writeUInt16LE(DOS_DATE, at + 8);
  header.writeUInt32LE(crc, at + 10);
  header.writeUInt32LE(compressedSize, at + 14);
  header.writeUInt32LE(size, at + 18);
  header.writeUInt16LE(nameLength, at + 22);
}

function zip(entries) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const nameBytes = Buffer.from(name, 'utf8');
    const compressed = deflateRawSync(data, { level: 9 });
    const fields = {
      crc: crc32(data),
      compressedSize: compressed.length,
      size: data.length,
      nameLength: nameBytes.length,
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeSharedFields(local, 4, fields);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(MADE_BY_UNIX, 4);
    writeSharedFields(central, 6, fields);
    central.writeUInt32LE((FILE_MODE << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, compressed);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  // Past these, the format needs its zip64 extension, which this writer does not have.
  if (entries.length > 0xffff || offset > 0xffffffff) fail('too large for a plain zip');
  return Buffer.concat([...locals, directory, end]);
}

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
try {
  statSync(join(dist, 'cli.js'));
  statSync(join(dist, 'chunks'));
} catch {
  fail('dist/ has no built CLI: run `npm run build` first');
}
const out = outputPath(process.argv.slice(2), pkg.version);
const files = bundleFiles();
const entries = [
  { name: 'manifest.json', data: Buffer.from(`${JSON.stringify(manifest(pkg, await toolList()), null, 2)}\n`) },
  // The bundle is ESM in .js files: without this, Node would read server/cli.js as CommonJS.
  { name: `${SERVER_DIR}/package.json`, data: Buffer.from(`${JSON.stringify({ type: 'module' })}\n`) },
  ...files,
];
const archive = zip(entries);
writeFileSync(out, archive);
process.stdout.write(
  `pack-mcpb: ${relative(process.cwd(), out) || out} (${entries.length} files, ${(archive.length / 1024 / 1024).toFixed(1)} MiB)\n`,
);
