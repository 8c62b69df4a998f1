// Every text forgeops composes from service data for the service's Markdown, Slack's mrkdwn or a terminal, fed a
// commit title, an author, a job and a project that mention everyone, reference issues, merge requests, labels and
// the rest, say "Closes #5", and carry ESC, BEL and a bidi override: each composer is listed here, and each must hand
// back no live reference, closing pattern, broadcast or hidden character. What is live in the service's Markdown is
// judged by this file's own reading of it (code spans, backslash escapes, entities), not by the quoting's.
import { describe, expect, it } from 'vitest';
import { revertDescription, revertTitle } from '../../../src/operations/composed/revert-as-merge-request.js';
import { pingAction } from '../../../src/operations/composed/failure-kind.js';
import { incidentText, incidentTitle, type TriageReport } from '../../../src/operations/composed/triage.js';
import { renderMessage, renderText } from '../../../src/slack/blocks.js';
import { renderGone, renderIncident, renderNote, renderTimeline } from '../../../src/slack/incident/render.js';
import { safeText } from '../../../src/terminal/render.js';
import { markdownBlock, quoteFor } from '../../../src/text/quote.js';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Text a stranger can put in the service: a broadcast in both markups, a mention, references of every kind with a
 * closing pattern, an entity that decodes to one, a backtick of its own, and characters that hide or reorder.
 */
const HOSTILE =
  'Fix @all <!channel> <@U0123> <#C42> <!subteam^S1> @bob, closes #5 !2 ~bug %v1 acme/web#6 &#35;7 `x ' +
  '\u001b[2J\u0007 \u202esseccus\u202c \u2066x\u2069 \u200b \u2028 \u0085';
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
    failed_jobs: [
      {
        id: 45,
        name: HOSTILE,
        stage: HOSTILE,
        failing_section: HOSTILE,
        failure_reason: HOSTILE,
        excerpt: 'Fixes #5 and https://gitlab.example/acme/web/-/issues/8\n</pre> <b>x</b> @all',
      },
    ],
    actions: [],
    unread: [],
    as_of: '2026-11-27T10:30:00Z',
  };
}

/** Characters that must never reach a destination raw: C0 but newline, DEL, C1, bidi controls, zero-width, separators. */
const HIDDEN_RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/u;
/** Named entities that turn into a sign a reference starts with, besides the numeric ones. */
const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  num: '#',
  commat: '@',
  excl: '!',
  dollar: '$',
  percnt: '%',
  tilde: '~',
  Hat: '^',
  ast: '*',
  lsqb: '[',
  rsqb: ']',
  colon: ':',
  sol: '/',
};

/**
 * The text the service's Markdown leaves outside inline code, with entities decoded as the service decodes them: a
 * reading of the CommonMark rules that matter here. A backslash escapes the punctuation after it (the service
 * renders \#5 as text); a run of n backticks opens inline code that the next run of exactly n closes, and stays
 * literal when none does; an HTML block from a line <pre> to </pre> is shown as it is (the service renders no
 * reference in a pre element). Code becomes a space; escaped signs become a middle dot.
 */
function outsideCode(text: string): string {
  const markdown = text.replace(/^<pre>$[\s\S]*?<\/pre>$/gm, ' ');
  let out = '';
  let i = 0;
  while (i < markdown.length) {
    const c = markdown[i];
    if (c === '\\' && /[!-/:-@[-`{-~]/.test(markdown[i + 1] ?? '')) {
      out += '·';
      i += 2;
    } else if (c === '`') {
      const run = /^`+/.exec(markdown.slice(i))![0];
      let close = -1;
      for (const m of markdown.slice(i + run.length).matchAll(/`+/g)) {
        if (m[0].length === run.length) {
          close = i + run.length + m.index;
          break;
        }
      }
      if (close < 0) {
        out += run;
        i += run.length;
      } else {
        out += ' ';
        i = close + run.length;
      }
    } else {
      out += c;
      i += 1;
    }
  }
  return out.replace(/&(#\d+|#x[0-9a-f]+|[A-Za-z]+);/gi, (entity, name: string) => {
    if (name.startsWith('#'))
      return String.fromCodePoint(
        name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1)),
      );
    return NAMED_ENTITIES[name] ?? entity;
  });
}

/** References the service would render, broadly: any of these outside code is a live one. */
const LIVE_REFERENCES: Array<[kind: string, pattern: RegExp]> = [
  ['mention', /(?<!\w)@\w/],
  ['issue, merge request, snippet or epic', /[#!$&]\d/],
  ['label', /~["\w]/],
  ['milestone', /%["\w]/],
  ['alert', /\^alert#/],
  ['iteration', /\*iteration:/],
  ['issue (GL-)', /GL-\d/],
  ['[kind:id]', /\[[a-z_]+:\S/],
  ['wiki page', /\[\[/],
  ['project', /\w\/[\w.-]+>/],
  ['work item link', /https?:\/\/\S*\/(issues|merge_requests|work_items|epics)\/\d/],
];

/** The live references in a text for the service's Markdown, as [kind, text around it]. */
function liveReferences(markdown: string): Array<[string, string]> {
  const text = outsideCode(markdown);
  return LIVE_REFERENCES.flatMap(([kind, pattern]) => {
    const found = pattern.exec(text);
    return found ? [[kind, text.slice(Math.max(0, found.index - 10), found.index + 12)] as [string, string]] : [];
  });
}

/**
 * The service's default closing pattern, as its docs give it, over the raw text (as the service scans it: inline
 * code and code blocks included); %{issue_ref} read as a local or cross-project issue or a link.
 */
const CLOSING_PATTERN =
  /\b((?:[Cc]los(?:e[sd]?|ing)|\b[Ff]ix(?:e[sd]|ing)?|\b[Rr]esolv(?:e[sd]?|ing)|\b[Ii]mplement(?:s|ed|ing)?)(:?) +(?:(?:issues? +)?(?:https?:\/\/\S+|(?:[\w./-]+)?#\d+)(?:(?: *,? +and +| *,? *)?)|([A-Z][A-Z0-9_]+-\d+))+)/;
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
  "note pinging the culprit's author": () =>
    String(
      pingAction(HOSTILE, HOSTILE, {
        kind: 'broken',
        evidence: HOSTILE,
        jobs: [
          {
            name: HOSTILE,
            kind: 'broken',
            evidence: `${HOSTILE} failed`,
            runs: 2,
            failed: 2,
            since: { sha: 'eb4870be0123456789', author: HOSTILE },
          },
        ],
      })?.input?.note,
    ),
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
  it.each(Object.entries(markdownComposers))(
    '%s: no live reference, no raw HTML, no hidden character',
    (_, compose) => {
      const text = compose();
      expect(liveReferences(text)).toEqual([]);
      expect(text).not.toMatch(CLOSING_PATTERN);
      expect(text.replace(/^<\/?pre>$/gm, '')).not.toMatch(/<[!@#a-z/]/i);
      expect(text).not.toMatch(HIDDEN_RAW);
      // What was hidden is still there to read, spelled out.
      expect(text).toContain('\\u202e');
    },
  );

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

/** Titles a stranger can give a commit, with what of each must end up in inline code. */
const HOSTILE_TITLES: Array<[title: string, inCode: string[]]> = [
  ['Fix login, closes #5 !2 ~bug @all', ['#5', '!2', '~bug', '@all']],
  ['Fixes group/project#12 and project!3', ['group/project#12', 'project!3']],
  ['Resolves issue#3 (a project named issue)', ['issue#3']],
  ['Implements /acme/web~bug and acme/platform/infra%2', ['/acme/web~bug', 'acme/platform/infra%2']],
  ['Labels ~"needs review", ~priority::high and ~12', ['~"needs review"', '~priority::high', '~12']],
  ['Milestones %v1.2. %"release candidate" %3', ['%v1.2', '%"release candidate"', '%3']],
  ['Snippet $42, epic &9, alert ^alert#4', ['$42', '&9', '^alert#4']],
  ['[issue:7] [work_item:acme/web/3] [[Home]] GL-8 *iteration:"Sprint 3"', ['[issue:7]', '[work_item:acme/web/3]']],
  ['Mention @acme/platform and the project acme/web>', ['@acme/platform', 'acme/web>']],
  ['Closes https://gitlab.example/acme/web/-/issues/5.', ['https://gitlab.example/acme/web/-/issues/5']],
  ['See https://example.com/page#5, then #6', ['https://example.com/page#5', '#6']],
  ['Closes &#35;5 &num;6 &commat;all', ['#35']],
  ['Already `Closes #5` in code, ``#6`` too', ['#5', '#6']],
  ['A label with a backtick ~"a`b" and a path C:\\dir\\#7', ['~"a`b"', '#7']],
  ['Closes:#5, fixes #6 and #7, closing issues #8', ['#5', '#6', '#7', '#8']],
];

/** Titles with signs that are no reference, which must come back as they are (but for & and < as entities). */
const ORDINARY_TITLES = [
  'Port the C# and F# clients',
  'Cover 100% of the parser, 50 % of the rest',
  'Mail a@b.example about R&D',
  'Read ~/.bashrc, ~ 5 minutes',
  'Hello! Costs $ and # signs',
  'https://example.com/docs/page.',
];

describe('hostile titles in the service Markdown', () => {
  it.each(HOSTILE_TITLES)('%s: every reference in inline code, none live, no closing pattern', (title, inCode) => {
    const quoted = quoteFor('markdown', title);
    expect(liveReferences(quoted)).toEqual([]);
    expect(quoted).not.toMatch(CLOSING_PATTERN);
    for (const reference of inCode) expect(quoted).toMatch(new RegExp(`(\`+) ?${escapeRegExp(reference)} ?\\1`));
  });

  it.each(ORDINARY_TITLES)('%s: stays as it is', (title) => {
    expect(quoteFor('markdown', title)).toBe(title.replace(/&/g, '&amp;'));
  });

  it('a code span of the text is escaped, so it cannot swallow or split one of ours; a longer fence holds a backtick', () => {
    expect(quoteFor('markdown', 'Closes `#5`')).toBe('Closes \\``#5`\\`');
    expect(quoteFor('markdown', 'label ~"a`b"')).toBe('label ``~"a`b"``');
    expect(quoteFor('markdown', 'trailing \\#5')).toBe('trailing \\\\`#5`');
    expect(quoteFor('markdown', '#5!3')).toBe('`#5!3`');
  });
});

describe('quoteFor', () => {
  it('service Markdown: mentions become inline code, e-mail addresses stay, < opens no tag', () => {
    expect(quoteFor('markdown', 'ping @all and @group.sub-1, mail a@b.example')).toBe(
      'ping `@all` and `@group.sub-1`, mail a@b.example',
    );
    expect(quoteFor('markdown', '<img src=x>')).toBe('&lt;img src=x>');
  });

  it('a block of log lines is an HTML pre block: no fence to close, no closing pattern in the raw text', () => {
    expect(markdownBlock('Fixes #5 in HTTPS://x/a\n```\n</pre> & done: # 1')).toBe(
      '<pre>\nFixes &#35;5 in HTTPS&#58;//x/a\n```\n&lt;/pre&gt; &amp; done: # 1\n</pre>',
    );
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
