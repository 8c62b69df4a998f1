// Triage in Slack as on-call people use it: the report comes to the asker alone with a "Share in channel" button that
// posts the same report to the channel once; it says how long main has been red and since when; and its "Open
// incident issue" button writes the issue from a triage when it is pressed, once; its "Revert <sha8> as a merge request"
// button opens the revert's merge request, once, and later reports offer merging it instead.
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/mcp.js';
import { buttonsOf as buttons, type MessageButton, messageText } from '../helpers/slack.js';
import { type Body, useSlackBot } from '../helpers/slack-bot.js';

const env = useSandbox();
// U1 (ana) links the demo maintainer's token; U2 (bea) the developer's.
const bots = useSlackBot(env, { name: 'triage', people: { U1: 'maintainer', U2: 'developer' } });
const { command } = bots;

/** Clicks a button as Slack sends the click; the answers to its response_url once `answers` of them came. */
async function click(button: MessageButton, o: { user?: string; answers?: number } = {}): Promise<Body[]> {
  const count = o.answers ?? 1;
  return bots.answers(await bots.click(button, o), count, `${count} answers to ${button.text.text}`);
}

const button = (body: Body, label: string) => buttons(body).find((b) => b.text.text === label)!;

/** The report's own text, without its buttons and small print: what the channel must see the same. */
function reportBlocks(body: Body): unknown[] {
  return (body.blocks as Array<{ type: string }>).filter((b) => b.type !== 'actions' && b.type !== 'context');
}

describe('triage in Slack', () => {
  it('answers the asker alone, saying since when and how long red, with Share in channel', async () => {
    const report = await command('triage acme/web');
    expect(report.response_type).toBe('ephemeral');
    const text = messageText(report);
    expect(text).toContain('acme/web: main is RED');
    expect(text).toMatch(/\*red for\*\\n\d+ (d|h)( \d+ (h|min))?, since (\d{4}-\d{2}-\d{2} )?\d{2}:\d{2} UTC/);
    expect(buttons(report).map((b) => b.text.text)).toContain('Share in channel');
    expect(button(report, 'Share in channel').action_id).toBe('forge_share');
  });

  it('shares the same report in the channel once, saying who shared it; the private copy loses its button', async () => {
    const report = await command('triage acme/web');
    const share = button(report, 'Share in channel');
    const [replaced, posted] = await click(share, { answers: 2 });
    expect(replaced).toMatchObject({ replace_original: true });
    expect(buttons(replaced).map((b) => b.text.text)).not.toContain('Share in channel');
    expect(messageText(replaced)).toContain('Shared in the channel.');
    expect(posted.response_type).toBe('in_channel');
    expect(reportBlocks(posted)).toEqual(reportBlocks(report));
    expect(messageText(posted)).toContain('Shared by ana.');
    // The channel's copy has the report's own steps, and none to share it again.
    expect(buttons(posted).map((b) => b.text.text)).toEqual(
      buttons(report)
        .map((b) => b.text.text)
        .filter((label) => label !== 'Share in channel'),
    );
    // A second click posts nothing more.
    const [again] = await click(share);
    expect(messageText(again)).toMatch(/Already shared in the channel; not posted again\./);
    expect(again.response_type).toBe('ephemeral');
    // Someone else's click (a forwarded button value) posts nothing either.
    const other = button(await command('triage acme/web'), 'Share in channel');
    const [refused] = await click(other, { user: 'U2' });
    expect(messageText(refused)).toMatch(/no longer works .*nothing was posted/);
  });

  it('opens the incident issue when its button is pressed, written from a triage then, and only once', async () => {
    const incidents = async () =>
      (
        await env.client.request<Array<{ iid: number; title: string; description: string }>>({
          method: 'GET',
          path: '/projects/acme%2Fweb/issues',
          query: { labels: 'incident', state: 'opened' },
          idempotent: true,
        })
      ).data;
    const before = (await incidents()).length;
    const report = await command('triage acme/web');
    const open = button(report, 'Open incident issue');
    // The button carries a reference, and what it stores is short: the project, not the text.
    expect(open.value.length).toBeLessThan(40);
    const [answer] = await click(open, { user: 'U2' });
    expect(messageText(answer)).toMatch(/Opened incident issue #\d+ \\"main is red: test failing\\" in acme\/web/);
    const after = await incidents();
    expect(after).toHaveLength(before + 1);
    expect(after[0].description).toMatch(/^Red for .*, since .* UTC\.$/m);
    expect(after[0].description).toContain('by Bob Chen');
    // Pressed from another report of the same incident: it names the open issue and opens none.
    const [second] = await click(button(await command('triage acme/web'), 'Open incident issue'));
    expect(messageText(second)).toContain(`already open: #${after[0].iid}`);
    expect(await incidents()).toHaveLength(before + 1);
  });

  it('reverts the first red commit as a merge request when its button is pressed, and offers merging it after', async () => {
    const report = await command('triage acme/web');
    const revert = buttons(report).find((b) => /^Revert [0-9a-f]{8} as a merge request$/.test(b.text.text))!;
    const sha8 = /^Revert ([0-9a-f]{8})/.exec(revert.text.text)![1];
    const branch = `revert-${sha8}`;
    const fromBranch = async () =>
      (
        await env.client.request<Array<{ iid: number; title: string; web_url: string; target_branch: string }>>({
          method: 'GET',
          path: '/projects/acme%2Fweb/merge_requests',
          query: { source_branch: branch, state: 'all' },
          idempotent: true,
        })
      ).data;
    expect(await fromBranch()).toEqual([]);
    const [answer] = await click(revert, { user: 'U2' });
    const [mr] = await fromBranch();
    expect(mr).toMatchObject({ target_branch: 'main', title: expect.stringMatching(/^Revert ".*"$/) });
    expect(messageText(answer)).toContain(`Opened merge request !${mr.iid}`);
    expect(messageText(answer)).toContain(`from ${branch} into main of acme/web`);
    expect(messageText(answer)).toContain(mr.web_url);
    // A later report names the open revert and offers merging it, never a second revert.
    const later = await command('triage acme/web');
    expect(messageText(later)).toContain(`!${mr.iid}`);
    expect(buttons(later).map((b) => b.text.text)).not.toContain(revert.text.text);
    expect(buttons(later).map((b) => b.text.text)).toContain(`Merge !${mr.iid} when green`);
    // The first report's button, pressed again, was spent by the revert it ran: nothing more is made.
    const [again] = await click(revert);
    expect(messageText(again)).toMatch(/no longer works.*nothing was run\. For fresh buttons, ask again/);
    expect(await fromBranch()).toHaveLength(1);
  });

  it("says broken, not flaky, with the evidence in one line, and its first button pings the culprit's author (or reverts)", async () => {
    const report = await command('triage acme/web');
    expect(messageText(report)).toMatch(/\*failure\*\\nbroken: test failed on 2 of 2 runs since [0-9a-f]{8}/);
    const [first] = buttons(report).map((b) => b.text.text);
    // Once a revert is open (the test above opens one), merging it comes first.
    expect(first).toMatch(/^(Revert [0-9a-f]{8}.*|Ping Bob Chen on [0-9a-f]{8}|Merge !\d+ when green)$/);
  });

  it('Ping comments on the commit since which the test fails, with the evidence, for the service to tell its author', async () => {
    const report = await command('triage acme/web');
    const ping = buttons(report).find((b) => b.text.text.startsWith('Ping Bob Chen on '))!;
    const sha8 = ping.text.text.slice(-8);
    const comments = async () =>
      (
        await env.client.request<Array<{ note: string }>>({
          method: 'GET',
          path: `/projects/acme%2Fweb/repository/commits/${sha8}/comments`,
          idempotent: true,
        })
      ).data;
    const before = (await comments()).length;
    await click(ping, { user: 'U2' });
    const after = await comments();
    expect(after).toHaveLength(before + 1);
    expect(after.at(-1)!.note).toBe(
      `main is red since this commit: test failed on 2 of 2 runs since ${sha8}. Please revert or fix it.`,
    );
  });
});
