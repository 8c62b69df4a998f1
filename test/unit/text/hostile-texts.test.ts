// Every text forgeops composes from service data for the service's Markdown, Slack's mrkdwn or a terminal, fed a
// commit title, an author, a job and a project that mention everyone and carry ESC, BEL and a bidi override: each
// composer is listed here, and each must hand back no live mention, broadcast or hidden character.
import { describe, expect, it } from 'vitest';
import { revertDescription, revertTitle } from '../../../src/operations/composed/revert-as-merge-request.js';
import { incidentText, incidentTitle, type TriageReport } from '../../../src/operations/composed/triage.js';
import { renderMessage, renderText } from '../../../src/slack/blocks.js';
import { renderGone, renderIncident, renderNote, renderTimeline } from '../../../src/slack/incident/render.js';
import { safeText } from '../../../src/terminal/render.js';
import { quoteFor } from '../../../src/text/quote.js';

/** Text a stranger can put in the service: a broadcast in both markups, a mention, and characters that hide or reorder. */
const HOSTILE =
  'Fix @all <!channel> <@U0123> <#C42> <!subteam^S1> @bob \u001b[2J\u0007 \u202esseccus\u202c \u2066x\u2069 \u200b \u2028 \u0085';
const NOW = Date.parse('2026-11-27T10:30:00Z');

function hostileReport(): TriageReport {
  return {
    project: `acme/${HOSTILE}`,
    default_branch: HOSTILE,
    verdict: 'red',
    because: `pipeline #12 failed on ${HOSTILE}`,
    head: { sha: 'eb4870be0123456789', title: HOSTILE, author: HOSTILE },
    head_pipeline: { id: 12, status: 'failed' },
    red_since: {
      first_red: {
        pipeline: 10,
        sha: 'eb4870be0123456789',
        since: '2026-11-27T10:00:00Z',
        title: HOSTILE,
        author: HOSTILE,
      },
      last_green: { pipeline: 9, sha: 'aaaaaaaa0000' },
      suspects: [{ sha: 'eb4870be0123456789', title: HOSTILE, author: HOSTILE }],
      more_suspects: false,
      ping: [HOSTILE],
    },
    failure: {
      kind: 'broken',
      evidence: `${HOSTILE} failed on 2 of 2 runs`,
      jobs: [{ name: HOSTILE, kind: 'broken', evidence: `${HOSTILE} failed`, runs: 2, failed: 2 }],
    },
    failed_jobs: [{ id: 45, name: HOSTILE, stage: HOSTILE, failing_section: HOSTILE, failure_reason: HOSTILE }],
    actions: [],
    unread: [],
    as_of: '2026-11-27T10:30:00Z',
  };
}

/** Characters that must never reach a destination raw: C0 but newline, DEL, C1, bidi controls, zero-width, separators. */
const HIDDEN_RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/u;
/** A live mention in the service's Markdown: @name not inside inline code. */
const LIVE_MARKDOWN_MENTION = /(^|[^`\w])@(all|bob)\b(?!`)/;
/** Slack's special sequences: a broadcast, a user, a channel, a user group. */
const LIVE_SLACK_MENTION = /<[!@#]/;

const report = hostileReport();
const plan = {
  target: HOSTILE,
  commit: { id: 'eb4870be0123456789', title: HOSTILE, author_name: HOSTILE },
  branch: 'revert-eb4870be',
};

const markdownComposers: Record<string, () => string> = {
  'revert merge request title': () => revertTitle({ title: `Revert "${HOSTILE}"` }, plan.commit),
  'revert merge request title without the service title': () => revertTitle({}, plan.commit),
  'revert merge request description': () => revertDescription(plan, report),
  'revert merge request description, not red': () =>
    revertDescription(plan, { ...report, verdict: 'green', head_pipeline: undefined }),
  'incident issue title': () => incidentTitle(report),
  'incident issue description': () => incidentText(report, NOW),
};

const slackComposers: Record<string, () => { text: string; blocks: unknown[] }> = {
  'incident alert': () => renderIncident({ project: HOSTILE, ref: HOSTILE, report, phase: 'red', buttons: [] }, NOW),
  'incident alert, green': () =>
    renderIncident(
      {
        project: HOSTILE,
        ref: HOSTILE,
        report,
        phase: 'green',
        green: { redForMs: 60_000, fixedBy: { sha: 'bbbbbbbb', title: HOSTILE, author: HOSTILE } },
        buttons: [],
      },
      NOW,
    ),
  'thread line': () => renderTimeline({ user: HOSTILE, did: 'pressed', label: HOSTILE, outcome: HOSTILE }),
  'thread note': () => renderNote(HOSTILE, HOSTILE),
  'watch gone': () => renderGone(HOSTILE, HOSTILE, HOSTILE),
  'short reply': () => renderText(`${HOSTILE}\n${HOSTILE}`, 'warning'),
  'reply in Block Kit': () =>
    renderMessage({
      title: HOSTILE,
      fields: [[HOSTILE, HOSTILE]],
      sections: [{ title: HOSTILE, text: HOSTILE, code: false }],
      notes: [],
      actions: [],
    } as unknown as Parameters<typeof renderMessage>[0]),
};

describe('text composed from service data, for each destination', () => {
  it.each(Object.entries(markdownComposers))('%s: no live mention, no raw HTML, no hidden character', (_, compose) => {
    const text = compose();
    expect(text).not.toMatch(LIVE_MARKDOWN_MENTION);
    expect(text).not.toMatch(/<[!@#a-z]/i);
    expect(text).not.toMatch(HIDDEN_RAW);
    // What was hidden is still there to read, spelled out.
    expect(text).toContain('\\u202e');
  });

  it.each(Object.entries(slackComposers))('%s: no broadcast or mention, no hidden character', (_, compose) => {
    const message = compose();
    for (const text of [message.text, JSON.stringify(message.blocks)]) {
      expect(text).not.toMatch(LIVE_SLACK_MENTION);
      expect(JSON.parse(JSON.stringify(text))).not.toMatch(HIDDEN_RAW);
    }
    expect(message.text).not.toMatch(HIDDEN_RAW);
    expect(JSON.stringify(message.blocks)).toContain('&lt;!channel&gt;');
  });

  it('a terminal: every control spelled out, newline and tab kept', () => {
    const text = safeText(`${HOSTILE}\n\tnext`);
    expect(text.replace(/\n\t/g, '')).not.toMatch(HIDDEN_RAW);
    expect(text).toContain('\\u001b[2J\\u0007');
    expect(text).toContain('\n\tnext');
  });
});

describe('quoteFor', () => {
  it('service Markdown: mentions become inline code, e-mail addresses stay, < opens no tag', () => {
    expect(quoteFor('markdown', 'ping @all and @group.sub-1, mail a@b.example')).toBe(
      'ping `@all` and `@group.sub-1`, mail a@b.example',
    );
    expect(quoteFor('markdown', '<img src=x>')).toBe('&lt;img src=x>');
  });

  it('Slack mrkdwn: &, < and > escaped as Slack documents, so <!here> and <@U1> are text', () => {
    expect(quoteFor('mrkdwn', 'a & <!here> <@U1>')).toBe('a &amp; &lt;!here&gt; &lt;@U1&gt;');
  });

  it('one-line fields spell out newlines and line separators; multi-line text keeps its newlines', () => {
    expect(quoteFor('markdown', 'a\n/close\u2028b')).toBe('a\\u000a/close\\u2028b');
    expect(quoteFor('mrkdwn', 'a\nb\u0085', { multiline: true })).toBe('a\nb\\u0085');
    expect(quoteFor('terminal', '\u202eabc\td', { multiline: true })).toBe('\\u202eabc\td');
  });
});
