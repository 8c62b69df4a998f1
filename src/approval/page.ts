// The approval page: GET shows one waiting call (HTML-escaped) and its expiry; POST approves or denies it, after Host, Origin, nonce and passphrase checks.
import { spawn } from 'node:child_process';
import { createListener, personPageHeaders, readBoundedBody } from '../http/listener.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log.js';
import { silentLogger } from '../log.js';
import type { ShownText } from '../text/visible.js';
import { APPROVAL_PATH, ApprovalPageStore, type ApprovalPageStoreOptions, type ApprovalView } from './page-store.js';
import { REPLICA_NAME } from '../defaults.js';

/** An answer is three short fields; anything bigger is not from our form. */
const MAX_ANSWER_BYTES = 4096;
/** A page's id: random base64url, after the replica's name and a dot when replicas share a balancer. */
const APPROVAL_ID = new RegExp(`^(?:${REPLICA_NAME}\\.)?[A-Za-z0-9_-]{16,64}$`);

/**
 * Never cached (a back button must not replay a stale page), never framed (a page that frames it could trick the
 * human into clicking Approve), no scripts, forms post only here, and the link does not leak by Referer.
 */
const PAGE_HEADERS = personPageHeaders("'self'");

interface ApprovalPageOptions {
  store: ApprovalPageStore;
  /**
   * The Host headers the page answers to (host:port). Against DNS rebinding: a page on evil.example whose name now
   * resolves to 127.0.0.1 reaches this port, but its requests still carry Host: evil.example.
   */
  allowedHosts: () => readonly string[];
  log?: Logger;
}

/** The Host values a page bound to `host`:`port` answers to, plus the host of the public URL people open. */
export function pageHosts(host: string, port: number, loopback: boolean, publicUrl?: string): string[] {
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const hosts = loopback
    ? [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${shown}:${port}`]
    : [`${shown}:${port}`];
  if (publicUrl) hosts.push(new URL(publicUrl).host);
  return [...new Set(hosts.map((h) => h.toLowerCase()))];
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function document(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}` +
    `pre{white-space:pre-wrap;word-break:break-all;background:#f4f4f4;padding:1rem;border:1px solid #ccc}` +
    `.question{counter-reset:line}.question span{display:block;position:relative;padding-left:4ch}` +
    `.question span::before{counter-increment:line;content:counter(line);position:absolute;left:0;color:#777}` +
    `button{font-size:1rem;padding:.5rem 1.5rem;margin-right:1rem}</style></head><body>${body}</body></html>`
  );
}

/**
 * The question, each of its lines numbered: the browser wraps a long line, and a wrapped piece has no number, so a
 * value padded to wrap where an argument would start cannot pass for a line of its own. HTML-escaped on top of the
 * ShownText's own escaping.
 */
function questionHtml(prompt: ShownText): string {
  return `<pre class="question">${prompt
    .split('\n')
    .map((line) => `<span>${escapeHtml(line)}</span>`)
    .join('')}</pre>`;
}

function approvalForm(id: string, view: ApprovalView, now: number): string {
  const secondsLeft = Math.max(0, Math.round((view.expiresAt - now) / 1000));
  const passphrase = view.needsSecret
    ? '<p><label>Operator passphrase (FORGEOPS_APPROVAL_SECRET): <input type="password" name="secret" autocomplete="off" required></label></p>'
    : '';
  return document(
    'forgeops: approve this call?',
    [
      '<h1>An assistant asks to run this call</h1>',
      '<p>Approve only if you asked for exactly this. It runs once, as shown, and cannot be undone.</p>',
      questionHtml(view.prompt),
      `<p>This request expires at <time>${new Date(view.expiresAt).toISOString()}</time> (in ${secondsLeft} s); after that nothing runs.</p>`,
      `<form method="post" action="${APPROVAL_PATH}${id}">`,
      `<input type="hidden" name="nonce" value="${escapeHtml(view.nonce)}">`,
      passphrase,
      // Labels that say what each does ("Yes, cancel pipeline 9"): on a cancel question, a bare Cancel could mean either.
      `<button type="submit" name="decision" value="approve">${escapeHtml(view.answers.yes)}</button>`,
      `<button type="submit" name="decision" value="deny" formnovalidate>${escapeHtml(view.answers.no)}</button>`,
      '</form>',
    ].join('\n'),
  );
}

function send(res: ServerResponse, status: number, html: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...PAGE_HEADERS, ...extra }).end(html);
}

function notice(res: ServerResponse, status: number, message: string, extra: Record<string, string> = {}): void {
  send(res, status, document('forgeops approval', `<h1>forgeops approval</h1><p>${escapeHtml(message)}</p>`), extra);
}

/** The form's fields, refusing bodies larger than any answer our page sends. */
async function readAnswer(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const body = await readBoundedBody(req, MAX_ANSWER_BYTES);
  return body && new URLSearchParams(body.toString('utf8'));
}

/**
 * A form post from the page itself: browsers always send Origin on a POST, so a missing one is a script or a tool
 * (a model's fetch), and a foreign one is another site trying to click for the human (CSRF). The page's own
 * origins are its allowed hosts (a reverse proxy may pass on another Host than the one the browser shows).
 */
function fromPage(req: IncomingMessage, allowedHosts: readonly string[]): boolean {
  const origin = req.headers.origin;
  if (!origin) return false;
  try {
    const { protocol, host } = new URL(origin);
    return (protocol === 'http:' || protocol === 'https:') && allowedHosts.includes(host.toLowerCase());
  } catch {
    return false;
  }
}

/** The request handler for APPROVAL_PATH/<id>, for `serve`'s own server or the page `forgeops mcp` starts. */
function approvalPageHandler(options: ApprovalPageOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { store } = options;
  const log = options.log ?? silentLogger;
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const id = path.startsWith(APPROVAL_PATH) ? path.slice(APPROVAL_PATH.length) : '';
    const host = (req.headers.host ?? '').toLowerCase();
    if (!options.allowedHosts().includes(host)) {
      log.warn(`approval page: refused a request for Host '${host.slice(0, 100)}'`);
      return notice(res, 403, `Forbidden: Host '${host}' is not this server.`);
    }
    if (!APPROVAL_ID.test(id)) return notice(res, 404, 'There is no such approval page.');
    if (req.method === 'GET' || req.method === 'HEAD') {
      // The call may wait on another replica (plain round robin): the store asks it.
      store.show(id).then(
        (shown) => {
          if ('view' in shown) send(res, 200, approvalForm(id, shown.view, Date.now()));
          else notice(res, shown.closed.status, shown.closed.message);
        },
        (error: Error) => {
          log.error(`approval page: cannot show ${id.slice(0, 6)}…: ${error.message}`);
          notice(res, 500, 'This approval cannot be shown now; nothing changed. Reload the page.');
        },
      );
      return;
    }
    if (req.method !== 'POST') return notice(res, 405, 'Only GET and POST.', { allow: 'GET, POST' });
    if (!fromPage(req, options.allowedHosts())) {
      log.warn('approval page: refused an answer without this page as its Origin');
      return notice(
        res,
        403,
        'Forbidden: answers are accepted only from the approval page itself (Origin); nothing changed.',
      );
    }
    readAnswer(req)
      .then(
        async (form) => {
          if (!form)
            return notice(res, 413, 'This answer is too large to be from the approval page; nothing changed.', {
              connection: 'close',
            });
          const result = await store.answer(id, {
            nonce: form.get('nonce') ?? undefined,
            decision: form.get('decision') ?? undefined,
            secret: form.get('secret') ?? undefined,
          });
          // The audit line names the outcome only: never the passphrase, never the link (a model might read this log).
          log.info(`approval page: answer for ${id.slice(0, 6)}…: ${result.status} ${result.message}`);
          notice(res, result.status, result.message);
        },
        () => notice(res, 400, 'The answer could not be read; nothing changed.'),
      )
      .catch((error: Error) => {
        log.error(`approval page: cannot take the answer for ${id.slice(0, 6)}…: ${error.message}`);
        if (!res.headersSent)
          notice(res, 500, 'The answer could not be taken now; reload the page to see whether the call still waits.');
      });
  };
}

export interface LocalApprovalPageOptions extends Omit<ApprovalPageStoreOptions, 'pageUrl'> {
  /** Port on 127.0.0.1 (FORGEOPS_APPROVAL_PORT); 0 picks a free one. */
  port: number;
  /** Base URL people open instead of http://127.0.0.1:port (FORGEOPS_APPROVAL_URL, e.g. behind a tunnel). */
  publicUrl?: string;
  log?: Logger;
}

export interface LocalApprovalPage {
  store: ApprovalPageStore;
  /** Starts listening (once); resolves to the page's base URL. */
  start(): Promise<string>;
  close(): Promise<void>;
}

/**
 * The page for `forgeops mcp`, whose stdio has no HTTP server of its own: on 127.0.0.1 only, started when first
 * needed (or at start, for the `page` policy) so that a stdio server that never asks binds no port.
 */
export function createLocalApprovalPage(options: LocalApprovalPageOptions): LocalApprovalPage {
  const HOST = '127.0.0.1';
  let hosts: string[] = [];
  let listening: Promise<{ base: string; close(): Promise<void> }> | undefined;
  const store: ApprovalPageStore = new ApprovalPageStore({ ...options, pageUrl: async () => (await listen()).base });
  const handler = approvalPageHandler({ store, allowedHosts: () => hosts, log: options.log });

  function listen() {
    listening ??= new Promise((resolve, reject) => {
      const server = createListener(handler);
      server.once('error', (error) => {
        listening = undefined;
        reject(
          new Error(
            `cannot listen on ${HOST}:${options.port} (FORGEOPS_APPROVAL_PORT): ${(error as NodeJS.ErrnoException).code ?? error.message}`,
          ),
        );
      });
      server.listen(options.port, HOST, () => {
        const { port } = server.address() as AddressInfo;
        hosts = pageHosts(HOST, port, true, options.publicUrl);
        resolve({
          base: options.publicUrl ?? `http://${HOST}:${port}`,
          close: () =>
            new Promise<void>((done) => {
              server.closeAllConnections();
              server.close(() => done());
            }),
        });
      });
    });
    return listening;
  }

  return {
    store,
    start: async () => (await listen()).base,
    async close() {
      store.closeAll('forgeops is shutting down; nothing was changed.');
      const open = listening;
      listening = undefined;
      if (open) await (await open.catch(() => undefined))?.close();
    },
  };
}

interface MountedApprovalPage {
  store: ApprovalPageStore;
  path: string;
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  /** Tells the page the port its server got (with port 0 known only after listening). */
  listening(port: number): void;
}

/** The page on `forgeops serve`'s own server, beside /mcp. */
export function createMountedApprovalPage(
  options: Omit<LocalApprovalPageOptions, 'port'> & { host: string; loopback: boolean },
): MountedApprovalPage {
  let base: string | undefined;
  let hosts: string[] = [];
  const store = new ApprovalPageStore({
    ...options,
    pageUrl: async () => {
      if (!base) throw new Error('the server is not listening yet');
      return base;
    },
  });
  return {
    store,
    path: APPROVAL_PATH,
    handle: approvalPageHandler({ store, allowedHosts: () => hosts, log: options.log }),
    listening(port) {
      hosts = pageHosts(options.host, port, options.loopback, options.publicUrl);
      const shown = options.host.includes(':') ? `[${options.host}]` : options.host;
      base = options.publicUrl ?? `http://${shown}:${port}`;
    },
  };
}

/**
 * Why the page must not be served as configured, or undefined. Off loopback anyone on the network can reach it:
 * the link must then need a passphrase too, and people need the address they can open (0.0.0.0 is none).
 */
export function approvalPageProblem(
  loopback: boolean,
  settings: { secret?: string; publicUrl?: string },
): string | undefined {
  if (loopback) return undefined;
  if (!settings.secret) return 'the approval page is reachable from the network, so it needs FORGEOPS_APPROVAL_SECRET';
  if (!settings.publicUrl)
    return 'the approval page is reachable from the network, so it needs FORGEOPS_APPROVAL_URL (the address people open)';
  return undefined;
}

/**
 * The operator's FORGEOPS_APPROVAL_OPEN command (e.g. `open`, `xdg-open`, a desktop notifier), run with each link as
 * its last argument: a channel to the human that the model does not read. No shell, so a link is one argument.
 */
export function openCommandRunner(command: readonly string[], log: Logger): (approval: { url: string }) => void {
  const [program, ...args] = command;
  return ({ url }) => {
    const child = spawn(program, [...args, url], { stdio: 'ignore', detached: true });
    child.on('error', (error) => log.warn(`FORGEOPS_APPROVAL_OPEN: cannot run '${program}': ${error.message}`));
    child.unref();
  };
}
