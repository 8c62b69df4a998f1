// The incident message's Block Kit: what it says in each phase, and that text from the service (commit titles, job
// names, log lines, the service's own words in a timeline line) can neither mention, link nor fake a line.
import { describe, expect, it } from 'vitest';
import type { TriageReport } from '../../../src/operations/composed/triage.js';
import { renderGone, renderIncident, renderTimeline, type IncidentView } from '../../../src/slack/incident/render.js';
import { redReport } from '../../helpers/incident-bot.js';

const NOW = Date.parse('2026-11-27T10:30:00Z');

function report(over: Partial<TriageReport> = {}): TriageReport {
  return redReport({
    because: "the head's latest finished pipeline #12 failed",
    red_since: {
      first_red: {
        pipeline: 10,
        sha: 'eb4870be0123456789',
        since: '2026-11-27T10:00:00Z',
        title: 'Show order dates',
        author: 'Bob Chen',
      },
      last_green: { pipeline: 9, sha: 'aaaaaaaa0000' },
      suspects: [],
      more_suspects: false,
      ping: ['Bob Chen'],
    },
    failure: {
      kind: 'broken',
      evidence: 'test failed on 2 of 2 runs since eb4870be',
      jobs: [
        { name: 'test', kind: 'broken', evidence: 'test failed on 2 of 2 runs since eb4870be', runs: 2, failed: 2 },
      ],
    },
    failed_jobs: [
      {
        id: 45,
        name: 'test',
        stage: 'test',
        failing_section: 'step_script',
        excerpt: 'ok 1\nnot ok 2 dates\n  Expected: "2024-03-10"',
      },
    ],
    ...over,
  });
}

function view(over: Partial<IncidentView> = {}): IncidentView {
  return {
    project: 'acme/web',
    ref: 'main',
    report: report(),
    phase: 'red',
    buttons: [
      { label: 'Retry failed jobs', actionId: 'forge_followup:0', value: 'ref0', style: 'primary' },
      { label: 'Mute for an hour', actionId: 'forge_mute', value: 'ref1' },
    ],
    ...over,
  };
}

const texts = (message: { blocks: Array<Record<string, unknown>> }) => JSON.stringify(message.blocks);
const buttons = (message: { blocks: Array<Record<string, unknown>> }) =>
  message.blocks
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements as Array<{ action_id: string; text: { text: string } }>);

describe('the incident message', () => {
  it('says red with the verdict and evidence, the first red commit, since when and for how long, the error lines, and its buttons', () => {
    const message = renderIncident(view(), NOW);
    const all = texts(message);
    expect(all).toContain(':rotating_light: *acme/web* main is red: *broken*');
    expect(all).toContain('*broken*: test failed on 2 of 2 runs since eb4870be');
    expect(all).toContain('*First red:* `eb4870be` Show order dates by Bob Chen · red for 30 min, since 10:00 UTC');
    expect(all).toContain('*Failed:* test (#45) in step_script');
    expect(all).toContain('```ok 1\\nnot ok 2 dates\\n  Expected: \\"2024-03-10\\"```');
    expect(buttons(message).map((b) => [b.action_id, b.text.text])).toEqual([
      ['forge_followup:0', 'Retry failed jobs'],
      ['forge_mute', 'Mute for an hour'],
    ]);
    expect(message.text).toBe('acme/web main is red: broken');
  });

  it("names the first red commit's author by a Slack mention when they linked their account", () => {
    expect(texts(renderIncident(view({ culpritUser: 'U024BE7LH' }), NOW))).toContain(
      'Show order dates by <@U024BE7LH> ·',
    );
    // Anything that is not a Slack user id is not made a mention.
    expect(texts(renderIncident(view({ culpritUser: '!channel' }), NOW))).toContain('by Bob Chen');
  });

  it('says a retry is running, a new pipeline is running, still red (broken, not flaky), and resolved without buttons', () => {
    expect(texts(renderIncident(view({ phase: 'running', running: { id: 12, sha: 'cafebabe1234' } }), NOW))).toContain(
      'retrying… pipeline #12 running on `cafebabe`',
    );
    expect(texts(renderIncident(view({ phase: 'running', running: { id: 13, sha: 'deadbeef9999' } }), NOW))).toContain(
      ':arrows_counterclockwise: pipeline #13 running on `deadbeef`',
    );
    expect(texts(renderIncident(view({ phase: 'still-red' }), NOW))).toContain(
      'still red after the retry: broken, not flaky',
    );
    const green = renderIncident(
      view({
        phase: 'green',
        green: {
          redForMs: 7 * 60_000,
          fixedBy: { sha: 'f00dfeed5555', title: 'Revert "Show order dates"', author: 'Alice Martin' },
        },
      }),
      NOW,
    );
    expect(texts(green)).toContain(
      '*Resolved:* green again after 7 min, fixed by `f00dfeed` Revert \\"Show order dates\\" (Alice Martin)',
    );
    expect(texts(green)).toContain(':white_check_mark: *acme/web* main is green again');
    expect(buttons(green)).toEqual([]);
    expect(green.text).toBe('acme/web main is green again');
  });

  it("says where the revert's own pipeline stands: failed and at which job, or passed; and a green through it by its number", () => {
    const revert = {
      iid: 6,
      title: 'Revert "Show order dates"',
      source_branch: 'revert-eb4870be',
      matched_by: 'branch' as const,
      merge_when_pipeline_succeeds: false,
      reverts: 'eb4870be0123456789',
    };
    const failed = { ...revert, pipeline: { id: 23, status: 'failed' }, failedJob: { id: 77, name: 'test' } };
    expect(texts(renderIncident(view({ revert: failed }), NOW))).toContain(
      '*Revert:* !6 Revert \\"Show order dates\\" — :x: !6\'s pipeline #23 failed at test',
    );
    // Set to merge when green, its pipeline failed all the same: the failure is what it says.
    expect(texts(renderIncident(view({ revert: { ...failed, merge_when_pipeline_succeeds: true } }), NOW))).toContain(
      "!6's pipeline #23 failed at test",
    );
    expect(
      texts(renderIncident(view({ revert: { ...revert, pipeline: { id: 24, status: 'success' } } }), NOW)),
    ).toContain('— open: pipeline #24 success');
    const green = renderIncident(
      view({
        phase: 'green',
        revert,
        green: {
          redForMs: 7 * 60_000,
          fixedBy: { sha: 'f00dfeed5555', title: "Merge branch 'revert-eb4870be' into 'main'" },
          mergeRequest: { iid: 6, reverts: revert.reverts },
        },
      }),
      NOW,
    );
    expect(texts(green)).toContain('*Resolved:* green again after 7 min, fixed by !6 (revert of `eb4870be`)');
  });

  it('escapes hostile commit titles, authors, job names and log lines: no mention, no link, no line of their own', () => {
    const hostile = report({
      red_since: {
        first_red: {
          pipeline: 10,
          sha: 'eb4870be0123',
          since: '2026-11-27T10:00:00Z',
          title: 'fix <!channel> *urgent*\n*First red:* `00000000` by <@U999>',
          author: '<https://evil.example|Alice>',
        },
        suspects: [],
        more_suspects: false,
        ping: [],
      },
      failure: {
        kind: 'broken',
        evidence: 'deploy <!here> failed',
        jobs: [{ name: 'deploy <!here>', kind: 'broken', evidence: 'deploy <!here> failed', runs: 2, failed: 2 }],
      },
      failed_jobs: [
        { id: 46, name: 'lint\n<!everyone>', stage: 'test', excerpt: 'boom <!channel>\n```\n<@U1> & done\u202e' },
      ],
    });
    const message = renderIncident(view({ report: hostile, project: 'acme/<!channel>' }), NOW);
    const all = texts(message);
    for (const raw of ['<!channel>', '<!here>', '<!everyone>', '<@U999>', '<@U1>', '<https://evil'])
      expect(all).not.toContain(raw);
    expect(all).toContain('fix &lt;!channel&gt; *urgent*\\\\u000a*First red:*');
    expect(all).toContain('by &lt;https://evil.example|Alice&gt;');
    expect(all).toContain('*Failed:* lint\\\\u000a&lt;!everyone&gt; (#46)');
    // The log keeps its lines, in one code block that a fence inside cannot close; a direction override is spelled out.
    expect(all).toContain('```boom &lt;!channel&gt;\\n`\u200b`\u200b`\\n&lt;@U1&gt; &amp; done\\\\u202e```');
    expect(message.text).not.toContain('<!channel>');
  });

  it('shows only the last lines of a long failing part', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n');
    const all = texts(
      renderIncident(
        view({ report: report({ failed_jobs: [{ id: 1, name: 'test', stage: 'test', excerpt: lines }] }) }),
        NOW,
      ),
    );
    expect(all).toContain('```line 23\\nline 24');
    expect(all).not.toContain('line 22\\n');
  });
});

describe('the thread and notices', () => {
  it('names the presser by mention and escapes the outcome the service wrote', () => {
    const line = renderTimeline({
      user: 'U1',
      did: 'pressed',
      label: 'Retry failed jobs',
      outcome: 'Retried pipeline #12 <!channel>',
    });
    expect(texts(line)).toContain('<@U1> pressed *Retry failed jobs* → Retried pipeline #12 &lt;!channel&gt;');
    expect(
      texts(
        renderTimeline({
          user: 'U2',
          did: 'declined',
          label: 'Revert abcd1234 as a merge request',
          outcome: 'nothing was run',
        }),
      ),
    ).toContain('<@U2> declined *Revert abcd1234 as a merge request*: nothing was run');
  });

  it('says a watch stopped because the project can no longer be read', () => {
    expect(texts(renderGone('acme/web', 'main', '404 Project Not Found <!here>'))).toContain(
      'stopped watching acme/web main: it can no longer be read (404 Project Not Found &lt;!here&gt;)',
    );
  });
});

describe('where the culprit went, in the incident message', () => {
  const reached = {
    culprit: 'eb4870be0123456789',
    environments: [
      {
        environment: 'staging',
        environment_id: 2,
        tier: 'staging',
        holds: 'reached' as const,
        deployment_id: 12,
        sha: 'ffff00001111',
        ref: 'main',
        at: '2026-11-27T10:20:00Z',
      },
      {
        environment: 'production',
        environment_id: 3,
        tier: 'production',
        holds: 'before' as const,
        deployment_id: 9,
        sha: 'aaaaaaaa0000',
        ref: 'v1.1.0',
        tag: true,
      },
    ],
  };

  it('says which environment it reached and which runs a commit before it, under the first red line', () => {
    const all = texts(renderIncident(view({ report: report({ deployed: reached }) }), NOW));
    expect(all).toContain(
      '*Where it went:* eb4870be reached staging at 10:20 UTC (deployment #12); production runs v1.1.0, before it',
    );
    expect(all.indexOf('*Where it went:*')).toBeGreaterThan(all.indexOf('*First red:*'));
    expect(all).not.toContain(':warning:');
  });

  it('warns when it is live in production, says where its pipelines stopped when it reached none, and is gone once green', () => {
    const live = {
      ...reached,
      environments: [{ ...reached.environments[1], holds: 'reached' as const, at: '2026-11-27T10:25:00Z' }],
    };
    expect(texts(renderIncident(view({ report: report({ deployed: live }) }), NOW))).toContain(
      ':warning: *Where it went:* eb4870be reached production at 10:25 UTC (deployment #9, v1.1.0) — it is live in PRODUCTION',
    );
    const none = { culprit: reached.culprit, environments: [], stopped_at: 'test' };
    expect(texts(renderIncident(view({ report: report({ deployed: none }) }), NOW))).toContain(
      '*Where it went:* eb4870be reached no environment (its pipelines stopped at test)',
    );
    const green = view({
      report: report({ deployed: reached }),
      phase: 'green',
      green: { redForMs: 60_000, fixedBy: { sha: 'cccccccc0000' } },
    });
    expect(texts(renderIncident(green, NOW))).not.toContain('Where it went');
  });
});
