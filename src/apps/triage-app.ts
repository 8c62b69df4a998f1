// The server's side of the triage view (an MCP App, the io.modelcontextprotocol/ui extension): the ui:// resource
// holding the page, the _meta that names it on triage_project and get_pipeline, and the tools only the view calls.
// The ext-apps SDK's server helpers need McpServer; forgeops's low-level Server applies their conventions here by
// hand (test/unit/apps/triage-app.test.ts holds these names to the SDK's own).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The extension's id, under which a client declares it in capabilities.extensions. */
export const APPS_EXTENSION_ID = 'io.modelcontextprotocol/ui';
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';
/** The key older hosts read the view's address from (the SDK's helpers set it beside _meta.ui.resourceUri). */
export const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';
export const TRIAGE_VIEW_URI = 'ui://forgeops/triage.html';

/** The tools whose result the view shows. */
export const VIEW_TOOLS: readonly string[] = ['triage_project', 'get_pipeline'];
/**
 * What the view's buttons and panels call. Those the session does not offer the model are listed to a client that
 * renders views, marked for the view only; every call still goes through the same policy and approval.
 */
export const VIEW_CALLS: readonly string[] = [
  'triage_project',
  'get_pipeline',
  'list_pipeline_jobs',
  'get_job_log',
  'retry_pipeline',
  'cancel_pipeline',
  'revert_as_merge_request',
  'open_incident_issue',
  // Merge when green, once a revert of the culprit is open.
  'merge_merge_request',
  // Asked before each write button acts: a view kept open after the red is over must not retry an old pipeline.
  'check_button_premise',
];

/**
 * The resource's own _meta.ui: the page needs no origin at all (its script and style are inline, its data comes from
 * the host), so every list of allowed domains is empty; a border, because it is a report beside the answer.
 */
export const VIEW_RESOURCE_META = {
  ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true },
} as const;

/** The _meta a tool whose result the view shows carries. */
export const VIEW_TOOL_META = {
  ui: { resourceUri: TRIAGE_VIEW_URI },
  [LEGACY_RESOURCE_URI_KEY]: TRIAGE_VIEW_URI,
} as const;
/** The _meta of a tool listed for the view alone. */
export const VIEW_ONLY_TOOL_META = { ui: { visibility: ['app'] } } as const;

/** Whether a client declared it renders MCP Apps views: the extension, with our MIME type when it names types. */
export function rendersViews(capabilities: unknown): boolean {
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  const declared = extensions?.[APPS_EXTENSION_ID] as { mimeTypes?: unknown } | undefined;
  if (!declared || typeof declared !== 'object') return false;
  return !Array.isArray(declared.mimeTypes) || declared.mimeTypes.includes(VIEW_MIME_TYPE);
}

/**
 * Where the built page is: dist/apps/triage.html, found from this module whether it runs from the bundle
 * (dist/cli.js, dist/chunks/), from tsc's output (dist/apps/) or from source (src/apps/, tests).
 */
function viewFile(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 4; up++) {
    for (const candidate of [join(dir, 'apps', 'triage.html'), join(dir, 'dist', 'apps', 'triage.html')]) {
      if (existsSync(candidate)) return candidate;
    }
    dir = dirname(dir);
  }
  return undefined;
}

let page: string | undefined;

/** The page, read once; an Error naming the build step when it was never built. */
export function triageViewPage(): string {
  if (page !== undefined) return page;
  const file = viewFile();
  if (!file) throw new Error('the triage view is not built (dist/apps/triage.html): run npm run build');
  return (page = readFileSync(file, 'utf8'));
}

/** The resource as resources/list shows it. */
export const TRIAGE_VIEW_RESOURCE = {
  uri: TRIAGE_VIEW_URI,
  name: 'triage-view',
  title: 'Triage view',
  description:
    'The page MCP Apps hosts show beside triage_project and get_pipeline: verdict, first red commit, failing jobs and their lines, stages, release, and buttons that act.',
  mimeType: VIEW_MIME_TYPE,
  _meta: VIEW_RESOURCE_META,
} as const;

/** resources/read of the view: the page, the same for everyone (no data in it: the data comes in tool results). */
export function readTriageView() {
  return {
    contents: [{ uri: TRIAGE_VIEW_URI, mimeType: VIEW_MIME_TYPE, text: triageViewPage(), _meta: VIEW_RESOURCE_META }],
  };
}

interface Descriptor {
  name: string;
  _meta?: Record<string, unknown>;
}

/** A tool descriptor as listed with the view on: the view's tools name it; the others are unchanged. */
export function withViewMeta<T extends Descriptor>(descriptor: T): T {
  if (!VIEW_TOOLS.includes(descriptor.name)) return descriptor;
  return { ...descriptor, _meta: { ...descriptor._meta, ...VIEW_TOOL_META } };
}

/** A tool listed for the view alone. */
export function viewOnly<T extends Descriptor>(descriptor: T): T {
  const ui = { ...(descriptor._meta?.ui as Record<string, unknown> | undefined), ...VIEW_ONLY_TOOL_META.ui };
  return { ...descriptor, _meta: { ...descriptor._meta, ui } };
}
