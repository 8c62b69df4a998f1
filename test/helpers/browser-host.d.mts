// Types of browser-host.mjs for the tests that import it.
import type { Browser, Frame, Page } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';

export const APPS_CLIENT_CAPABILITIES: { elicitation: { form: Record<string, never> }; extensions: Record<string, { mimeTypes: string[] }> };
export function chromiumPath(path?: string): string | undefined;
/** Headless Chromium from `path` (default PATH); without one there, an Error naming the package and its install command. */
export function launchChromium(path?: string): Promise<Browser>;
export function viewCsp(csp?: { connectDomains?: string[]; resourceDomains?: string[]; frameDomains?: string[]; baseUriDomains?: string[] }): string;

export type Theme = 'light' | 'dark';

export interface ViewCall {
  name: string;
  arguments: Record<string, unknown>;
  /** The request's _meta, when the view sent one (the premise of a write button). */
  _meta?: Record<string, unknown>;
  result?: CallToolResult;
}

export interface AppHost {
  page: Page;
  /** http://127.0.0.1:<port>: everything the page may load comes from here. */
  origin: string;
  client: Client;
  /** Every URL the page and its frames requested, in order. */
  requests: string[];
  /** Messages of the dialogs (alert, confirm, prompt) any frame opened. */
  dialogs: string[];
  /** Errors thrown in any frame, and console errors: what to look at when a view does not render. */
  errors: string[];
  /** Tool calls the view made through the host, with their results once back. */
  viewCalls: ViewCall[];
  /** Confirmations forgeops asked of the human (elicitation), as the host showed them. */
  confirmations: string[];
  /** A tool as tools/list gives it to this apps-capable client. */
  tool(name: string): Promise<Tool>;
  /** Holds the view's calls of a tool (recorded in viewCalls, unanswered) until the returned function lets them go. */
  hold(tool: string): () => void;
  /** Calls a tool as the model would. */
  callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /**
   * Shows the view a tool names in a fresh frame (its resource read from forgeops), initialised with the call's input;
   * `html` shows that document instead (a benchmark's baseline view).
   */
  open(options: { tool: string; input: Record<string, unknown>; theme?: Theme; width?: number; html?: string }): Promise<Frame>;
  /** Posts a tool result into the open view; resolves to when it was posted (epoch ms, sub-millisecond). */
  post(result: CallToolResult): Promise<number>;
  setTheme(theme: Theme, width?: number): Promise<void>;
  close(): Promise<void>;
}

export function startAppHost(browser: Browser, options: {
  /** The forgeops process's environment (CODEHOST_URL and a token, at least). */
  env: Record<string, string>;
  /** Width of the view's frame in CSS pixels (default 640). */
  width?: number;
  /** Give the page Playwright's clock, so the test moves its timers (page.clock.runFor) instead of waiting. */
  clock?: boolean;
}): Promise<AppHost>;
