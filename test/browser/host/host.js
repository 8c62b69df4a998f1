// The test host's page script, bundled for the browser at test time: the MCP Apps SDK's host side (AppBridge) showing
// one view in a sandboxed frame, relaying its tool calls to forgeops, and asking the human itself when forgeops asks.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

/** What a host of each theme tells the view besides the theme's name: its colours and fonts, as CSS variables. */
const THEME_STYLES = {
  light: {
    '--color-background-primary': '#ffffff',
    '--color-background-secondary': '#f4f4f5',
    '--color-text-primary': '#18181b',
    '--color-text-secondary': '#52525b',
    '--color-border-primary': '#d4d4d8',
    '--font-sans': 'system-ui, sans-serif',
    '--font-mono': 'ui-monospace, monospace',
  },
  dark: {
    '--color-background-primary': '#18181b',
    '--color-background-secondary': '#27272a',
    '--color-text-primary': '#fafafa',
    '--color-text-secondary': '#a1a1aa',
    '--color-border-primary': '#3f3f46',
    '--font-sans': 'system-ui, sans-serif',
    '--font-mono': 'ui-monospace, monospace',
  },
};

function hostContext(theme, width) {
  return {
    theme,
    styles: { variables: THEME_STYLES[theme] },
    displayMode: 'inline',
    availableDisplayModes: ['inline'],
    containerDimensions: { width, maxHeight: 2000 },
    platform: 'web',
    locale: 'en-GB',
    timeZone: 'UTC',
  };
}

let bridge;
let frame;

/**
 * Shows the view served at /view (the resource's HTML, under the host's CSP) for one tool call: the bridge is
 * connected before the frame loads, so the view's ui/initialize is heard; the call's input and result follow it.
 * `window.forgeopsCallTool` is the test's binding to its MCP client: a call from the view goes to forgeops as the
 * host's own, through the same policy as the model's.
 */
async function open({ theme, width, toolInput }) {
  await close();
  frame = document.createElement('iframe');
  frame.id = 'view';
  // No allow-same-origin: the view runs in an opaque origin. allow-modals: were a script smuggled into the view to
  // call alert(), the dialog would show, and the test would see it.
  frame.setAttribute('sandbox', 'allow-scripts allow-modals');
  frame.style.width = `${width}px`;
  frame.style.height = '400px';
  document.getElementById('frame-slot').append(frame);
  bridge = new AppBridge(null, { name: 'forgeops-test-host', version: '1.0.0' }, { serverTools: {}, logging: {} }, { hostContext: hostContext(theme, width) });
  bridge.oncalltool = (params) => window.forgeopsCallTool(params);
  bridge.onsizechange = ({ height }) => { if (height) frame.style.height = `${Math.ceil(height)}px`; };
  bridge.onloggingmessage = () => {};
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.src = '/view';
  await initialized;
  await bridge.sendToolInput({ arguments: toolInput });
}

/** Posts the tool's result; returns when it was posted (epoch ms, sub-millisecond), the start of "time to render". */
async function sendResult(result) {
  const postedAt = performance.timeOrigin + performance.now();
  await bridge.sendToolResult(result);
  return postedAt;
}

function setTheme(theme, width) {
  bridge.setHostContext(hostContext(theme, width));
  document.body.dataset.theme = theme;
}

async function close() {
  if (!bridge) return;
  await bridge.teardownResource({}).catch(() => {});
  await bridge.close();
  frame.remove();
  bridge = undefined;
}

/**
 * A confirmation forgeops asked for (elicitation), shown by the host outside the view's frame: only the person
 * at the host answers it, never the view. Resolves with the button pressed.
 */
function askHuman(message) {
  const dialog = document.getElementById('confirm');
  document.getElementById('confirm-message').textContent = message;
  dialog.hidden = false;
  return new Promise((resolve) => {
    const answer = (decision) => () => {
      dialog.hidden = true;
      resolve(decision);
    };
    document.getElementById('confirm-accept').onclick = answer('accept');
    document.getElementById('confirm-decline').onclick = answer('decline');
  });
}

window.host = { open, sendResult, setTheme, close, askHuman };
