// The flaky red incident the Slack button tests press on: its report, posting it through the bot's incident messages,
// and reading the buttons of a posted message.
import type { Outbox } from '../../src/slack/incident/outbox.js';
import type { IncidentMessages } from '../../src/slack/incident/sink.js';
import { redReport } from './incident-bot.js';

/** main of acme/web red with pipeline #12, judged flaky: the report whose message offers Retry. */
export const FLAKY_RED_REPORT = redReport({
  because: 'pipeline #12 failed',
  failure: { kind: 'flaky', evidence: 'test passed on retry 1', jobs: [] },
});

export type Button = { action_id: string; value: string; text: { text: string } };

/** The buttons of a posted Slack message, in order. */
export const buttonsOf = (message: Record<string, unknown>): Button[] =>
  (message.blocks as Array<{ type: string; elements?: Button[] }>)
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements ?? []);

/** The button of `message` labelled `label`; throws when there is none, naming what there is. */
export function buttonLabelled(message: Record<string, unknown>, label: string): Button {
  const buttons = buttonsOf(message);
  const found = buttons.find((b) => b.text.text === label);
  if (!found) throw new Error(`no button '${label}' among ${buttons.map((b) => `'${b.text.text}'`).join(', ')}`);
  return found;
}

/** Tells channel C1 of team T1 that acme/web's main went red (episode 10) with `report`, and posts the message. */
export async function postRedIncident(
  bot: { incidents: IncidentMessages; outbox: Outbox },
  report = FLAKY_RED_REPORT,
): Promise<void> {
  await bot.incidents.deliver(
    { subscriber: 'slack:T1:C1', project: 'acme/web', since: 0 },
    { kind: 'red', project: 'acme/web', ref: 'main', episode: 'acme/web:main:10', report },
  );
  await bot.outbox.drain();
}
