// The browser's side of Slack's Connect links, on forgeops's HTTP listener: GET /connect/<id> shows whose Slack
// account the link binds and a Continue button; POST /connect/<id> spends the link and sends the browser to the code
// host's sign-in; GET /oauth/callback (when its state is a Slack sign-in) finishes it and says how it went.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { escapeHtml } from '../approval/page.js';
import { personPageHeaders } from '../http/listener.js';
import { CALLBACK_PATH } from '../identity/application.js';
import type { Logger } from '../log.js';
import { CONNECT_PATH, type Finished, type SlackConnect } from './connect.js';

/** The Continue form sends no fields; a body larger than this is not from it. */
const MAX_FORM_BYTES = 1024;

function document(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}` +
    `button{font-size:1rem;padding:.5rem 1.5rem}</style></head><body>${body}</body></html>`
  );
}

function page(status: number, title: string, paragraphs: string[], headers = personPageHeaders("'none'")): Response {
  const body = `<h1>${escapeHtml(title)}</h1>${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('')}`;
  return new Response(document(`forgeops: ${title}`, body), { status, headers });
}

/**
 * What the callback answers when no front end knows its state: a link opened twice, a sign-in that expired, a
 * replayed or forged callback. Nothing was bound.
 */
export function unknownSignInPage(): Response {
  return page(400, 'This sign-in is not known here', [
    'It was already used, has expired, or did not start at this forgeops. Nothing was linked.',
    'In Slack, run /forge login again for a new link.',
  ]);
}

export interface SlackConnectPagesOptions {
  connect: SlackConnect;
  /** Told how each sign-in ended (after the page is answered): Slack hears of it, the waiting command runs. */
  onFinished: (finished: Finished) => Promise<void>;
  log: Logger;
}

export class SlackConnectPages {
  /** The paths to mount on a listener: a prefix (ending in /) and the callback. */
  static readonly paths = [CONNECT_PATH, CALLBACK_PATH] as const;

  constructor(private readonly o: SlackConnectPagesOptions) {}

  /**
   * The callback, for a Slack sign-in only: undefined when the state is not one (it may be an MCP sign-in's, or
   * unknown: the listener then answers unknownSignInPage()). Answers the page; Slack is told after.
   */
  readonly handleSlackConnectCallback = async (url: URL): Promise<Response | undefined> => {
    const finished = await this.o.connect.finish(url);
    if (!finished) return undefined;
    void this.o
      .onFinished(finished)
      .catch((error: Error) => this.o.log.error(`slack: after a Connect sign-in: ${error.stack ?? error.message}`));
    if (!finished.ok) return page(400, 'Not connected', [finished.reason, 'You can close this page.']);
    return page(200, `Signed in as @${finished.account.username}`, [
      `Your Slack account is now connected to @${finished.account.username}: your /forge commands run as you.`,
      'You can go back to Slack and close this page.',
    ]);
  };

  /** Answers a request for /connect/… or /oauth/callback; false when the path is neither (the caller answers it). */
  readonly handle = async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const url = new URL(req.url ?? '/', 'http://forgeops.invalid');
    let response: Response | undefined;
    try {
      if (url.pathname === CALLBACK_PATH) {
        response =
          req.method === 'GET' || req.method === 'HEAD'
            ? ((await this.handleSlackConnectCallback(url)) ?? unknownSignInPage())
            : page(405, 'Only GET', ['The code host sends the browser back with a GET.']);
      } else if (url.pathname.startsWith(CONNECT_PATH)) {
        response = await this.link(req, url.pathname.slice(CONNECT_PATH.length));
      } else {
        return false;
      }
    } catch (error) {
      this.o.log.error(`slack: Connect page ${url.pathname.split('/')[1]}: ${(error as Error).stack ?? error}`);
      response = page(500, 'Something went wrong', [
        'forgeops could not finish this step; nothing was linked. Run /forge login in Slack for a new link.',
      ]);
    }
    await writeResponse(res, response);
    return true;
  };

  /** GET shows the link; POST (the Continue button) spends it and sends the browser to the code host. */
  private async link(req: IncomingMessage, id: string): Promise<Response> {
    const { connect } = this.o;
    if (req.method === 'POST') {
      await drain(req);
      const refused = crossSite(req, connect);
      if (refused) return page(403, 'Not from this page', [refused]);
      const begun = await connect.begin(id);
      if (!begun.ok)
        return begun.busy
          ? page(503, 'Try again in a few minutes', [begun.reason])
          : page(410, 'Link used or expired', [begun.reason]);
      return new Response(null, {
        status: 303,
        headers: { location: begun.redirect.href, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
      });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return page(405, 'Only GET and POST', []);
    const view = await connect.view(id);
    if (!view.ok)
      return page(410, 'Link used or expired', ['This link was used or has expired; run /forge login in Slack again.']);
    const host = connect.codeHostName;
    const who = view.userName ? `@${view.userName} (${view.user.userId})` : view.user.userId;
    // A GET spends nothing: Slack's unfurler, a mail scanner or a browser's preview may fetch this page first.
    const body = [
      `<h1>Connect Slack to ${escapeHtml(host)}</h1>`,
      `<p>This binds the Slack user <strong>${escapeHtml(who)}</strong> in workspace ${escapeHtml(view.user.teamId)} to the account you sign in with at ${escapeHtml(host)}: their /forge commands will run as that account.</p>`,
      '<p>Continue only if you asked for this link in Slack yourself.</p>',
      `<form method="post" action="${CONNECT_PATH}${escapeHtml(id)}"><button type="submit">Continue to ${escapeHtml(host)}</button></form>`,
    ].join('\n');
    return new Response(document('forgeops: connect your account', body), {
      status: 200,
      // A form may go to this page and on to the code host (browsers apply form-action to the redirect that follows it).
      headers: personPageHeaders(`'self' ${connect.codeHostOrigin}`),
    });
  }
}

/**
 * Why a Continue POST is refused, if it is: a browser says where a form came from (Sec-Fetch-Site, Origin), and only
 * the Connect page itself may spend a link: another site's auto-submitted form could otherwise bind the account its
 * visitor is signed in with at the code host to the Slack user who made the link.
 */
function crossSite(req: IncomingMessage, connect: SlackConnect): string | undefined {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    return `This form was sent from another site (Sec-Fetch-Site: ${site}); open the link from Slack instead.`;
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  // forgeops's public address, or the address the request reached (a proxy in front may keep the Host).
  const ours = new Set([
    connect.publicOrigin,
    ...(req.headers.host ? [`http://${req.headers.host}`, `https://${req.headers.host}`] : []),
  ]);
  if (!ours.has(origin))
    return `This form was sent from another site (Origin: ${origin}); open the link from Slack instead.`;
  return undefined;
}

async function drain(req: IncomingMessage): Promise<void> {
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) break;
  }
}

/** Writes a fetch Response to Node's response. */
export async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  if (res.headersSent) return;
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, headers).end(body);
}
