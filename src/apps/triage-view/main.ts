// The triage view: an MCP App (the ext-apps SDK's App) that the host shows beside triage_project or get_pipeline.
// The data comes only in the tool result the host pushes; the buttons call the server's tools through the host,
// which applies the same policy as to the model's calls (approval is asked of the human, never of the view).
// First: no schema of the SDK may be built before zod is told not to probe for eval.
import './no-eval.js';
import { App, applyDocumentTheme, applyHostFonts, applyHostStyleVariables } from '@modelcontextprotocol/ext-apps';

type McpUiHostContext = ReturnType<App['getHostContext']>;
import { append, button, h, show } from './dom.js';
import {
  actOnPremise,
  logLines,
  nextRefresh,
  pipelineState,
  pipelineView,
  resultData,
  resultText,
  stageRow,
  stillRunning,
  triageView,
  type StageRow,
  type ToolResultLike,
  type TriageView,
  type ViewAction,
} from './report.js';

/** Log lines shown first, and how many more each "more" asks for (get_job_log reads at most 5,000 from the end). */
const LOG_FIRST_LINES = 50;
const LOG_MAX_LINES = 5_000;

const app = new App({ name: 'forgeops-triage', version: '0.1.0' }, {}, { autoResize: true });
const root = document.getElementById('app')!;

/** What the view was opened on: which tool and its input, so Refresh asks the same question again. */
let source: { tool: string; input: Record<string, unknown> } | undefined;
let current: TriageView | undefined;
let stages: StageRow[] = [];
let outcome: { ok: boolean; text: string } | undefined;
let busy = false;
/** Since when (epoch ms) the view has been following a run by itself; undefined: it is not. */
let followingSince: number | undefined;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
/** The log open in the view: which job and how many lines of its end. */
let log: { jobId: number; name: string; lines: number; text?: string; error?: string } | undefined;

function theme(context: McpUiHostContext | undefined): void {
  if (!context) return;
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
}

async function call(
  tool: string,
  input: Record<string, unknown>,
  meta?: Record<string, unknown>,
): Promise<ToolResultLike> {
  try {
    return (await app.callServerTool({
      name: tool,
      arguments: input,
      ...(meta ? { _meta: meta } : {}),
    })) as ToolResultLike;
  } catch (error) {
    return {
      isError: true,
      content: [{ type: 'text', text: `The host could not call ${tool}: ${(error as Error).message}` }],
    };
  }
}

/** Shows a result of triage_project or get_pipeline; an error result is said in words and the last state stays. */
async function showResult(tool: string, input: Record<string, unknown>, result: ToolResultLike): Promise<void> {
  const data = result.isError ? undefined : resultData(result);
  if (!data) {
    outcome = { ok: false, text: resultText(result) || 'The result carried no report.' };
    render();
    return;
  }
  const project = String(input.id ?? data.project ?? '');
  // A result that came without its input (some hosts send only the result): Refresh asks about the same project.
  if (source && source.input.id === undefined && project) source.input = { ...source.input, id: project };
  const shown = tool === 'get_pipeline' ? pipelineView(data, project) : triageView(data);
  // Draw the verdict at once; the row of stages (one more read through the host) joins it when it answers.
  if (shown.pipelineId !== current?.pipelineId) stages = [];
  current = shown;
  render();
  await readStages(shown);
  scheduleRefresh();
}

/** Reads the stages of the view's pipeline; an answer that comes after a newer result was shown is dropped. */
async function readStages(shown: TriageView): Promise<void> {
  if (!shown.pipelineId) {
    stages = [];
    return;
  }
  const jobs = await call('list_pipeline_jobs', { id: shown.project, pipeline_id: shown.pipelineId });
  if (current !== shown) return;
  stages = jobs.isError ? [] : stageRow(resultData(jobs));
  render();
}

async function refresh(): Promise<void> {
  if (!source || busy) return;
  busy = true;
  render();
  try {
    await showResult(source.tool, source.input, await call(source.tool, source.input));
  } finally {
    busy = false;
    render();
  }
}

/** While something runs, read again every few seconds, for a few minutes at most; a manual refresh counts too. */
function scheduleRefresh(): void {
  if (refreshTimer) clearTimeout(refreshTimer);
  refreshTimer = undefined;
  const next = nextRefresh(current !== undefined && stillRunning(current, stages), Date.now(), followingSince);
  followingSince = next?.since;
  if (next)
    refreshTimer = setTimeout(() => {
      void refresh();
    }, next.inMs);
}

async function act(action: ViewAction): Promise<void> {
  if (busy) return;
  busy = true;
  outcome = { ok: true, text: `${action.label}: waiting for the server (it may ask you to approve)…` };
  render();
  let said: Awaited<ReturnType<typeof actOnPremise>>;
  try {
    // The view may have been drawn long ago: the server checks the button still applies before anything runs.
    said = await actOnPremise(action, call);
  } finally {
    busy = false;
  }
  outcome = { ok: said.ok, text: `${action.label}: ${said.text}` };
  render();
  // A change done: read the state again (a retry starts jobs: the view follows them); a changed premise too (the
  // view shows what is true now). Refused or declined: nothing changed, and a run the view was following is
  // followed on (a read due while the human was asked was skipped).
  if (said.ok || !said.ran) {
    followingSince = undefined;
    await refresh();
  } else {
    scheduleRefresh();
  }
}

async function openLog(jobId: number, name: string, lines: number): Promise<void> {
  log = { jobId, name, lines };
  render();
  const result = await call('get_job_log', { id: current?.project, job_id: jobId, lines });
  if (log?.jobId !== jobId) return;
  log = result.isError
    ? { jobId, name, lines, error: resultText(result) }
    : { jobId, name, lines, text: logLines(result) };
  render();
}

const STATE_WORDS: Record<TriageView['state'], string> = {
  red: 'Red',
  green: 'Green',
  running: 'Running',
  unknown: 'Unknown',
};

function render(): void {
  if (!current) {
    show(root, h('p', 'muted', outcome?.text ?? 'Waiting for the triage report…'));
    return;
  }
  const view = current;
  const title = h(
    'header',
    'head',
    h('span', `state state-${view.state}`, STATE_WORDS[view.state]),
    h('span', 'project', view.project, view.branch ? ` · ${view.branch}` : ''),
  );
  const because = h('p', 'because', view.because);
  const failure =
    view.failure &&
    h('p', `failure kind-${view.failure.kind}`, h('strong', '', view.failure.kind), ': ', view.failure.evidence);
  const firstRed =
    view.firstRed &&
    h(
      'p',
      'first-red',
      'First red: ',
      h('code', '', view.firstRed.sha.slice(0, 8)),
      ' ',
      view.firstRed.title ?? '',
      view.firstRed.author ? ` — ${view.firstRed.author}` : '',
      view.firstRed.redFor ? ` (red for ${view.firstRed.redFor})` : '',
    );
  const ping = view.ping.length > 0 && h('p', 'ping', 'Ping: ', view.ping.join(', '));
  const stageList =
    stages.length > 0 &&
    h(
      'ol',
      'stages',
      ...stages.map((stage) =>
        h(
          'li',
          'stage',
          stage.stage && h('span', 'stage-name', stage.stage),
          ...stage.jobs.map((job) =>
            h('span', `job job-${pipelineState(job.status)}`, job.name, ' ', h('small', '', job.status)),
          ),
        ),
      ),
    );
  const jobs =
    view.failedJobs.length > 0 &&
    h(
      'section',
      'jobs',
      ...view.failedJobs.map((job) =>
        h(
          'article',
          'job-card',
          h('h3', '', job.name, h('small', '', ` ${job.stage}${job.reason ? ` · ${job.reason}` : ''}`)),
          job.lines && h('pre', 'lines', job.lines),
          button(
            'Show the log',
            () => {
              void openLog(job.id, job.name, LOG_FIRST_LINES);
            },
            'small',
          ),
        ),
      ),
    );
  const release =
    view.release &&
    h(
      'p',
      'release',
      'Latest release: ',
      h('code', '', view.release.tag),
      view.release.unreleased ? ` · ${view.release.unreleased}` : '',
    );
  const whereItWent = view.whereItWent && h('p', 'where', 'Where it went: ', view.whereItWent);
  const openRevert = view.openRevert && h('p', 'revert', 'Open revert: ', view.openRevert);
  const unread = view.unread.length > 0 && h('ul', 'unread', ...view.unread.map((line) => h('li', '', line)));
  const buttons = h(
    'div',
    'actions',
    ...view.actions.map((action) =>
      button(
        action.label,
        () => {
          void act(action);
        },
        'act',
      ),
    ),
    button(
      busy ? 'Refreshing…' : 'Refresh',
      () => {
        followingSince = undefined;
        void refresh();
      },
      'refresh',
    ),
  );
  for (const b of buttons.querySelectorAll('button')) b.disabled = busy;
  const said = outcome && h('p', outcome.ok ? 'outcome' : 'outcome outcome-error', outcome.text);
  show(
    root,
    title,
    because,
    failure,
    firstRed,
    whereItWent,
    openRevert,
    ping,
    stageList,
    jobs,
    release,
    unread,
    buttons,
    said,
    logPanel(),
  );
  root.setAttribute('data-state', view.state);
}

function logPanel(): HTMLElement | undefined {
  if (!log) return undefined;
  const open = log;
  const panel = h('section', 'log', h('h3', '', `Log of ${open.name}`, h('small', '', ` · last ${open.lines} lines`)));
  if (open.error) append(panel, h('p', 'outcome outcome-error', open.error));
  else if (open.text === undefined) append(panel, h('p', 'muted', 'Reading the log…'));
  else append(panel, h('pre', 'lines', open.text));
  const more =
    open.lines < LOG_MAX_LINES &&
    open.text !== undefined &&
    button(
      'More',
      () => {
        void openLog(open.jobId, open.name, Math.min(open.lines * 4, LOG_MAX_LINES));
      },
      'small',
    );
  append(
    panel,
    h(
      'div',
      'actions',
      more,
      button(
        'Close',
        () => {
          log = undefined;
          render();
        },
        'small',
      ),
    ),
  );
  return panel;
}

app.ontoolinput = (params) => {
  // The host says which tool the view belongs to only through its input's shape: a pipeline read names pipeline_id.
  const input = (params.arguments ?? {}) as Record<string, unknown>;
  source = { tool: input.pipeline_id !== undefined ? 'get_pipeline' : 'triage_project', input };
};
app.ontoolresult = (result) => {
  source ??= { tool: 'triage_project', input: {} };
  void showResult(source.tool, source.input, result as ToolResultLike);
};
app.onhostcontextchanged = (context) => theme(context);
app.onteardown = async () => {
  if (refreshTimer) clearTimeout(refreshTimer);
  return {};
};

render();
void app.connect().then(() => theme(app.getHostContext()));
