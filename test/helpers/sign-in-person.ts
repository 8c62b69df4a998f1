// The person at the code host during `forgeops login`: signs in on the sandbox's pages and approves a device code,
// or follows the browser flow's address back to the loopback listener, with plain fetch (no real browser).
import type { Sandbox } from '../../src/sandbox/server.js';
import { Browser, formOf, signInFrom } from '../unit/sandbox/oauth-browser.js';

/** Signs in as `username` at the verification URI, enters the user code and answers the consent page. */
export async function approveDeviceCode(
  sandbox: Sandbox,
  userCode: string,
  username = 'bob',
  decision: 'authorize' | 'deny' = 'authorize',
): Promise<void> {
  const browser = new Browser(sandbox);
  const codePage = await signInFrom(browser, await browser.open('/oauth/device'), username);
  const consent = await browser.submit(formOf(codePage), { user_code: userCode });
  if (consent.status !== 200)
    throw new Error(`the code page answered ${consent.status}: ${consent.html.slice(0, 200)}`);
  const done = await browser.submit(formOf(consent), { decision });
  if (done.status !== 200) throw new Error(`the consent page answered ${done.status}`);
}

/**
 * Opens the authorization URL, signs in and authorizes; gives the address the provider sent the browser back to
 * (the loopback listener's callback), not yet visited.
 */
export async function authorizeInBrowser(sandbox: Sandbox, url: string, username = 'bob'): Promise<URL> {
  const browser = new Browser(sandbox);
  let page = await browser.open(url);
  if (!page.leftTo && page.url.includes('/users/sign_in')) page = await signInFrom(browser, page, username);
  if (!page.leftTo) page = await browser.submit(formOf(page), { decision: 'authorize' });
  if (!page.leftTo) throw new Error(`the browser was not sent back (${page.status} at ${page.url})`);
  return page.leftTo;
}
