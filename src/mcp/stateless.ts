// The stateless 2026-07-28 revision of MCP, served beside the 2025-11-25 sessions on the same /mcp: any replica
// answers any request. A call needing a human answers input_required with a signed requestState naming an approval
// in the shared store (src/mcp/request-state-approver.ts); it runs only when the same call comes back approved, once.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DurableApprovals } from '../approval/binding.js';
import { approvalQuestion, elicitationForm, elicitationModes } from './approver.js';
import type { ApprovalCall } from '../approval/port.js';
import { principalOf, RequestStateApprover } from './request-state-approver.js';
import type { Logger } from '../log.js';
import type { StateStore } from '../state/store.js';
import { SESSION_TOKEN_HEADER as TOKEN_HEADER } from './http/guard.js';
import type { SignedIn } from './http/guard.js';
import type { SessionOwner } from './http/sessions.js';
import { type StateCodec, sharedStateCodec } from './request-state-key.js';
import { normaliseAddress } from '../http/addresses.js';
import { serviceTokenChecker, type ServiceTokenChecker } from './token-check.js';
import { readTriageView, rendersViews, TRIAGE_VIEW_RESOURCE, TRIAGE_VIEW_URI } from '../apps/triage-app.js';
import {
  createToolCore,
  instructions,
  SERVER_INFO,
  APPROVAL_TIMEOUT_MS,
  type CallExtra,
  type McpServerOptions,
} from './server.js';

type V2 = typeof import('@modelcontextprotocol/server');
type HandlerContext = import('@modelcontextprotocol/server').ServerContext;

/** The key of the one question a destructive call asks, in inputRequests and inputResponses (a wire name: kept). */
const APPROVAL_KEY = 'confirm';
/** The signed requestState's payload: the approval it names (the field keeps the name replicas already exchange). */
type ApprovalState = { ticket: string };
/**
 * Calls one client (a service token, or none, from one address) may have waiting for an answer at once, while they
 * can still be answered; all of them together are capped by the store.
 */
export const MAX_WAITING_PER_CLIENT = 20;
/** What a 2026-07-28 client asking to subscribe to a resource is told. */
export const STATELESS_SUBSCRIBE_REFUSAL =
  'Resource subscriptions are served to 2025-11-25 sessions only: connect with initialize ' +
  '(a session) and send resources/subscribe for forgeops://projects/{project}/status there; the 2026-07-28 revision of this ' +
  "server offers tools (and, to clients that render MCP Apps, the triage view's page) only.";
/**
 * Carries the signed-in person (OAuth mode) from the bearer check to the request's server, inside this process only:
 * whatever a client sends under this name is dropped first.
 */
const PERSON_HEADER = 'x-forgeops-signed-in-person';
const SCOPES_HEADER = 'x-forgeops-signed-in-scopes';

interface StatelessOptions {
  /**
   * The tool calls' options for a request acting with `token` (its X-Codehost-Token), or with the configured token;
   * or, signed in (OAuth), as `owner.person` with the scopes of the sign-in.
   */
  serverOptions(token?: string, owner?: SessionOwner): McpServerOptions;
  /** Where approvals wait: Redis when replicas share (FORGEOPS_REDIS_URL), else this process's memory. */
  store: StateStore;
  /** Whether other replicas see the same store: then the requestState key must be the same on all of them. */
  sharedStore: boolean;
  /** FORGEOPS_SECRET, when set: the requestState key derives from it. */
  secret?: string;
  maxMessageBytes: number;
  log: Logger;
  /** Asks the service about a client's own token; `serve` shares one with the sessions (default: one of its own). */
  tokenChecker?: ServiceTokenChecker;
}

export interface StatelessEndpoint {
  /**
   * Answers a POST that names no session when it speaks 2026-07-28 (by the SDK's own classification, so both always
   * agree) and says true; false, having written nothing, for a 2025 request. `caller` is the client's address as the
   * HTTP server reads it (through trusted proxies); default: the connection's.
   */
  serveIfModern(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    caller?: string,
    signedIn?: SignedIn,
  ): Promise<boolean>;
  close(): Promise<void>;
}

function webRequest(req: IncomingMessage, body: unknown, signal: AbortSignal, signedIn?: SignedIn): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const one of value) headers.append(name, one);
  }
  headers.delete(PERSON_HEADER);
  headers.delete(SCOPES_HEADER);
  if (signedIn) {
    // A signed-in request acts as its person only: a service token beside the bearer is not another way in.
    headers.delete(TOKEN_HEADER);
    headers.set(PERSON_HEADER, signedIn.person);
    headers.set(SCOPES_HEADER, signedIn.scopes.join(' '));
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/mcp'}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    signal,
  });
}

/** Writes a web Response to Node's response, streaming an SSE body as it comes; stops reading if the client goes. */
async function sendResponse(response: Response, res: ServerResponse): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const stop = () => {
    void reader.cancel().catch(() => undefined);
  };
  res.once('close', stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } finally {
    res.off('close', stop);
    res.end();
  }
}

/** A tool call's handler terms over this revision: the 2025 SDK's, with the request's own context. */
type StatelessExtra = CallExtra & { requestContext: HandlerContext };

/** The context of the request a tool call came in, from the terms the tool core hands back with the call. */
function requestContextOf(extra: CallExtra): HandlerContext {
  const context = (extra as Partial<StatelessExtra>).requestContext;
  if (!context) throw new Error('a 2026-07-28 tool call came without its request context');
  return context;
}

/** The capabilities the client of one stateless request declared: its envelope carries them on every request. */
function clientCapabilities(v2: V2, ctx: HandlerContext): unknown {
  return (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[v2.CLIENT_CAPABILITIES_META_KEY];
}

/** Whether the client of one stateless request declared form elicitation (its envelope carries the capabilities). */
function formElicitation(v2: V2, ctx: HandlerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return elicitationModes(envelope?.[v2.CLIENT_CAPABILITIES_META_KEY] as { elicitation?: unknown } | undefined).form;
}

/** What every request of the endpoint shares: the SDK, the options, the requestState codec, the approver. */
interface StatelessParts {
  v2: V2;
  options: StatelessOptions;
  codec: StateCodec<ApprovalState>;
  approver: RequestStateApprover;
  /** The caller of each request being served, by the web Request the SDK hands to serverFor. */
  callers: WeakMap<Request, string>;
}

/**
 * One call's approval over two requests (see RequestStateApprover): this reads what the adapter needs of the request
 * and turns its question into the revision's input_required answer, whose requestState names the approval.
 */
async function askApproval(
  parts: StatelessParts,
  ctx: HandlerContext,
  token: string | undefined,
  person: string | undefined,
  caller: string,
  call: ApprovalCall,
  serverOptions: McpServerOptions,
) {
  const { v2, codec, approver } = parts;
  const state = ctx.mcpReq.requestState<ApprovalState>();
  const response = state?.ticket ? v2.inputResponse(ctx.mcpReq.inputResponses, APPROVAL_KEY) : undefined;
  const answer = await approver.ask(call, {
    answered:
      state?.ticket && response?.kind === 'elicit'
        ? { id: state.ticket, action: response.action, content: response.content }
        : undefined,
    formElicitation: formElicitation(v2, ctx),
    token,
    person,
    caller,
    policy: serverOptions.approval,
  });
  if (!('asked' in answer)) return answer;
  return {
    ask: v2.inputRequired({
      inputRequests: {
        [APPROVAL_KEY]: v2.inputRequired.elicit({
          message: approvalQuestion(call.prompt),
          requestedSchema: elicitationForm(call.answers),
        }),
      },
      requestState: await codec.mint({ ticket: answer.asked.id }, ctx),
    }) as unknown as Record<string, unknown>,
  };
}

/** One server per request, as the revision wants: nothing of it outlives the answer. */
function serverFor(parts: StatelessParts, request: { requestInfo?: Request }) {
  const { v2, options, codec, callers } = parts;
  const token = request.requestInfo?.headers.get(TOKEN_HEADER) || undefined;
  const person = request.requestInfo?.headers.get(PERSON_HEADER) || undefined;
  const scopes = (request.requestInfo?.headers.get(SCOPES_HEADER) ?? '').split(' ').filter(Boolean);
  const caller = (request.requestInfo && callers.get(request.requestInfo)) ?? 'unknown';
  const serverOptions = person ? options.serverOptions(undefined, { person, scopes }) : options.serverOptions(token);
  const apps = serverOptions.apps !== false;
  const core = createToolCore(serverOptions, {
    logger: () => serverOptions.log ?? options.log,
    // The call's own request: its requestState and answer, its client's capabilities.
    askApproval: (call, extra) =>
      askApproval(parts, requestContextOf(extra), token, person, caller, call, serverOptions),
    // Declared per request, like every capability of this revision: the request being answered says.
    rendersViews: (extra) => rendersViews(clientCapabilities(v2, requestContextOf(extra))),
  });
  const server = new v2.Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, ...(apps ? { resources: { listChanged: false } } : {}) },
    instructions: instructions(core.offered.meta),
    requestState: { verify: codec.verify },
  });
  server.setRequestHandler('tools/list', async (_request, ctx) => {
    return { tools: core.toolsList(rendersViews(clientCapabilities(v2, ctx))) as never };
  });
  // The triage view's page is the one resource of this revision (files and statuses are the sessions').
  if (apps) serveTriageView(v2, server);
  server.setRequestHandler('tools/call', async (request, ctx) => {
    // The tool calls speak the 2025 SDK's handler terms; these are the parts of them they use, and the request's
    // own context, which they hand back to ask for approval.
    const extra = {
      requestId: ctx.mcpReq.id,
      signal: ctx.mcpReq.signal,
      _meta: ctx.mcpReq._meta,
      sendNotification: (notification: { method: string; params?: Record<string, unknown> }) =>
        ctx.mcpReq.notify(notification as never),
      requestContext: ctx,
    } as unknown as StatelessExtra;
    return (await core.callTool(request.params.name, request.params.arguments ?? {}, extra)) as never;
  });
  return server;
}

/** The triage view's page, the one resource of this revision. */
function serveTriageView(v2: V2, server: InstanceType<V2['Server']>): void {
  server.setRequestHandler('resources/list', async (_request, ctx) => ({
    resources: rendersViews(clientCapabilities(v2, ctx)) ? [TRIAGE_VIEW_RESOURCE as never] : [],
  }));
  server.setRequestHandler('resources/read', async (request) => {
    if (request.params.uri !== TRIAGE_VIEW_URI) {
      throw new v2.ProtocolError(
        v2.ProtocolErrorCode.InvalidParams,
        `Unknown resource ${JSON.stringify(request.params.uri)}: over 2026-07-28 ` +
          `this server serves ${TRIAGE_VIEW_URI} only; files and statuses are read in a 2025-11-25 session.`,
      );
    }
    return readTriageView() as never;
  });
}

export async function createStatelessEndpoint(options: StatelessOptions): Promise<StatelessEndpoint> {
  const v2 = await import('@modelcontextprotocol/server');
  const codec = await sharedStateCodec<ApprovalState>(options, (key) =>
    v2.createRequestStateCodec<ApprovalState>({
      key,
      ttlSeconds: APPROVAL_TIMEOUT_MS / 1000,
      // An echo under another service token is refused before the handler runs.
      bind: (ctx) => principalOf(ctx.http?.req?.headers.get(TOKEN_HEADER), ctx.http?.req?.headers.get(PERSON_HEADER)),
    }),
  );
  const approvals = new DurableApprovals(options.store, {
    ttlMs: APPROVAL_TIMEOUT_MS,
    maxPerRequester: MAX_WAITING_PER_CLIENT,
  });
  /** The caller of each request being served, by the web Request the SDK hands to serverFor. */
  const callers = new WeakMap<Request, string>();

  const approver = new RequestStateApprover(
    approvals,
    options.tokenChecker ?? serviceTokenChecker(options.serverOptions().client),
  );
  const parts: StatelessParts = { v2, options, codec, approver, callers };
  const handler = v2.createMcpHandler((request) => serverFor(parts, request), {
    legacy: 'reject',
    maxRequestBodySize: options.maxMessageBytes,
    onerror: (error) => options.log.debug(`mcp 2026-07-28: ${error.message}`),
  });

  return {
    async serveIfModern(req, res, body, caller = normaliseAddress(req.socket.remoteAddress ?? 'unknown'), signedIn) {
      // One web Request for both the classification and the call; the client going away aborts the call (its
      // signal), as it does a 2025 session's.
      const gone = new AbortController();
      const request = webRequest(req, body, gone.signal, signedIn);
      callers.set(request, caller);
      // The parsed body is given: the SDK classifies from it and reads nothing, so the request stays unread.
      if (await v2.isLegacyRequest(request, body, { maxRequestBodySize: options.maxMessageBytes })) return false;
      // The revision has no resources/subscribe and no session to send updates on (it follows resources through
      // subscriptions/listen, and this endpoint serves no resources): the SDK's bare "Method not found" becomes words.
      const subscribe = body as { id?: unknown; method?: unknown } | undefined;
      if (
        subscribe?.method === 'resources/subscribe' &&
        (typeof subscribe.id === 'string' || typeof subscribe.id === 'number')
      ) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: subscribe.id,
            error: { code: -32601, message: STATELESS_SUBSCRIBE_REFUSAL },
          }),
        );
        return true;
      }
      res.once('close', () => {
        if (!res.writableFinished) gone.abort();
      });
      await sendResponse(await handler.fetch(request, { parsedBody: body }), res);
      return true;
    },
    close: () => handler.close(),
  };
}
