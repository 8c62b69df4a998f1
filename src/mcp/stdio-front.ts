// The first moments of `forgeops mcp`: initialize and tools/list answered from what the build computed, before zod,
// the SDK, the configuration or the registry are loaded; any other message hands the stream to the real server,
// which is first told the messages answered here (their answers dropped), so it holds the same session.
import type { Readable, Writable } from 'node:stream';
import { rendersViews, VIEW_CALLS, viewOnly, withViewMeta } from '../apps/triage-app.js';
import type { CatalogTool } from './catalog.js';
import { META_TOOLS } from './meta-tools.js';
import type { PrebuiltStart } from './prebuilt-catalog.js';
import type { RequestId } from './stdio.js';
import { selectTools, usableTools } from './toolsets.js';
import type { ToolDescriptor } from './tools.js';
import { splitList } from '../text/split-list.js';

/** What decides the tools offered (the configuration's policy, or the command line's --toolsets and --tools). */
export interface QuickSelection {
  toolsets: readonly string[];
  tools?: readonly string[];
  readOnly: boolean;
  apps: boolean;
}

const FLAG_VALUES = ['true', 'false', '1', '0', 'yes', 'no', ''];
const APPS_VALUES = ['on', 'off', ...FLAG_VALUES];

/**
 * The selection config.ts would read from this environment and these options, without loading it (it brings zod);
 * undefined where it would read more than the environment (an env file) or refuse a value, so that the usual start,
 * which says why, runs instead. serveStdio checks the configuration's own selection against it once loaded.
 */
export function selectionFromEnvironment(
  env: NodeJS.ProcessEnv,
  options: { envFile?: string; toolsets?: string; tools?: string },
): QuickSelection | undefined {
  if (options.envFile !== undefined || env.FORGEOPS_ENV_FILE) return undefined;
  const readOnly = env.FORGEOPS_READ_ONLY;
  const apps = env.FORGEOPS_APPS;
  if (
    (readOnly !== undefined && !FLAG_VALUES.includes(readOnly)) ||
    (apps !== undefined && !APPS_VALUES.includes(apps))
  )
    return undefined;
  return {
    toolsets: splitList(options.toolsets ?? env.FORGEOPS_TOOLSETS),
    tools: splitList(options.tools ?? env.FORGEOPS_TOOLS),
    readOnly: readOnly === 'true' || readOnly === '1' || readOnly === 'yes',
    apps: !['off', 'false', '0', 'no'].includes(apps ?? ''),
  };
}

/** A line longer than this is no initialize or tools/list worth answering here: the real transport takes it. */
const MAX_QUICK_LINE_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/** What the real server starts from once the front steps aside. */
export interface Handover {
  /** Bytes read from the input and not answered here, plus the answered messages, first, for the server to replay. */
  prelude: Buffer;
  /** Ids of the requests answered here: the server's own answers to them are dropped. */
  answered: RequestId[];
  /** The input ended while the front held it. */
  ended: boolean;
}

interface FrontOptions {
  start: PrebuiltStart;
  tools: readonly CatalogTool[];
  selection: QuickSelection;
  input?: Readable;
  output?: Writable;
}

type Message = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };

function isId(id: unknown): id is RequestId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An initialize request as the SDK would accept it: anything less is left for the SDK to answer. */
function isInitialize(message: Message): boolean {
  if (message.method !== 'initialize' || !isObject(message.params)) return false;
  const { protocolVersion, capabilities, clientInfo } = message.params;
  return (
    typeof protocolVersion === 'string' &&
    isObject(capabilities) &&
    isObject(clientInfo) &&
    typeof clientInfo.name === 'string' &&
    typeof clientInfo.version === 'string'
  );
}

/**
 * The tools/list answer of a session, as createToolCore in server.ts makes it; undefined for a selection that names
 * nothing (the real start then fails with the message saying so). test/e2e/mcp-fast-start.test.ts holds the two equal.
 */
export function quickToolsList(
  tools: readonly CatalogTool[],
  selection: QuickSelection,
): { list(clientCapabilities: unknown): readonly ToolDescriptor[]; meta: boolean } | undefined {
  let offered: ReturnType<typeof selectTools<CatalogTool>>;
  try {
    offered = selectTools(tools, selection);
  } catch {
    return undefined;
  }
  const listed = [...offered.operations.map((tool) => tool.descriptor), ...(offered.meta ? META_TOOLS : [])];
  const offeredNames = new Set(offered.operations.map((tool) => tool.name));
  const usableNames = new Set(usableTools(tools, selection.readOnly).map((tool) => tool.name));
  const viewOnlyTools = selection.apps
    ? tools.filter(
        (tool) => VIEW_CALLS.includes(tool.name) && usableNames.has(tool.name) && !offeredNames.has(tool.name),
      )
    : [];
  return {
    meta: offered.meta,
    list: (clientCapabilities) =>
      selection.apps && rendersViews(clientCapabilities)
        ? [...listed.map(withViewMeta), ...viewOnlyTools.map((tool) => viewOnly(tool.descriptor))]
        : listed,
  };
}

/**
 * Holds the input from the start. `handoverWanted` settles at the first message it does not answer, once tools/list
 * is answered, or when the input ends; `handOver()` then stops reading and gives what the server must take over.
 */
export class StdioFront {
  readonly handoverWanted: Promise<void>;
  private wantHandover!: () => void;
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly start: PrebuiltStart;
  private readonly tools: NonNullable<ReturnType<typeof quickToolsList>>;
  /** Bytes not yet taken as answered lines: the rest of a line, and everything after a line not answered here. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private readonly replay: string[] = [];
  private readonly answered: RequestId[] = [];
  private clientCapabilities: unknown;
  private initialized = false;
  private stepping = false;
  private ended = false;

  private constructor(options: FrontOptions, tools: NonNullable<ReturnType<typeof quickToolsList>>) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.start = options.start;
    this.tools = tools;
    this.handoverWanted = new Promise((resolve) => {
      this.wantHandover = () => {
        this.stepping = true;
        resolve();
      };
    });
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
  }

  /** A front for this selection, reading the input from now on; undefined when it could not answer tools/list. */
  static open(options: FrontOptions): StdioFront | undefined {
    const tools = quickToolsList(options.tools, options.selection);
    return tools ? new StdioFront(options, tools) : undefined;
  }

  /** Stops reading: what was read and not answered, and the answered messages before it, go to the real server. */
  handOver(): Handover {
    // Paused until the transport listens, so that no chunk arrives with nobody to take it.
    this.input.pause();
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    const replayed = this.replay.map((line) => `${line}\n`).join('');
    const prelude = Buffer.concat([Buffer.from(replayed), ...this.pending]);
    this.pending = [];
    return { prelude, answered: this.answered, ended: this.ended };
  }

  private readonly onEnd = () => {
    this.ended = true;
    this.wantHandover();
  };

  private readonly onData = (chunk: Buffer | string) => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.pending.push(data);
    this.pendingBytes += data.length;
    if (this.stepping) return;
    let nl = data.indexOf(NEWLINE);
    while (nl !== -1 && !this.stepping) {
      const all = Buffer.concat(this.pending, this.pendingBytes);
      const end = all.indexOf(NEWLINE);
      const line = all.subarray(0, end).toString('utf8');
      const rest = all.subarray(end + 1);
      if (!this.answer(line)) {
        this.wantHandover();
        return;
      }
      this.pending = rest.length ? [rest] : [];
      this.pendingBytes = rest.length;
      nl = rest.indexOf(NEWLINE);
    }
    if (this.pendingBytes > MAX_QUICK_LINE_BYTES) this.wantHandover();
  };

  /** Answers (or takes in silence) one line; false for a line the real server must answer. */
  private answer(line: string): boolean {
    if (line.trim() === '') return true;
    let message: Message;
    try {
      message = JSON.parse(line) as Message;
    } catch {
      return false;
    }
    if (!isObject(message) || message.jsonrpc !== '2.0') return false;
    if (message.method === 'notifications/initialized' && message.id === undefined && this.initialized) {
      this.replay.push(line);
      return true;
    }
    if (!isId(message.id)) return false;
    if (!this.initialized && isInitialize(message)) {
      const params = message.params as { protocolVersion: string; capabilities: unknown };
      this.clientCapabilities = params.capabilities;
      this.initialized = true;
      const { protocolVersions, latestProtocolVersion, capabilities, serverInfo, instructions } = this.start;
      this.send(message.id, {
        protocolVersion: protocolVersions.includes(params.protocolVersion)
          ? params.protocolVersion
          : latestProtocolVersion,
        capabilities,
        serverInfo,
        instructions: this.tools.meta ? instructions.withMeta : instructions.withoutMeta,
      });
      this.replay.push(line);
      return true;
    }
    if (
      this.initialized &&
      message.method === 'tools/list' &&
      (message.params === undefined || isObject(message.params))
    ) {
      this.send(message.id, { tools: this.tools.list(this.clientCapabilities) });
      this.replay.push(line);
      // The list is out: the model reads it while the rest loads.
      setImmediate(this.wantHandover);
      return true;
    }
    return false;
  }

  private send(id: RequestId, result: unknown): void {
    this.answered.push(id);
    this.output.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);
  }
}
