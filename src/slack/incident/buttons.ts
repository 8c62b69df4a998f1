// The buttons of a watch's messages (incidents and deployments alike): each call kept in the store for the click,
// bound to the message it is on, and drawn as one actions block.
import type { ButtonPremise } from '../../operations/composed/button-premise.js';
import type { StateStore } from '../../state/store.js';
import { ACTION_IDS, type Block, cut, LIMITS } from '../blocks.js';
import { type IncidentOfButton, storeFollowUp } from '../follow-ups.js';

/** A button of a message as drawn. */
export interface IncidentButton {
  label: string;
  actionId: string;
  /** A stored reference, never the call itself. */
  value: string;
  style?: 'primary' | 'danger';
}

/** A button's call before it is stored: what a press runs, and what must still hold when it is pressed. */
export interface ButtonCall {
  label: string;
  operation: string;
  input: Record<string, unknown>;
  style?: 'primary' | 'danger';
  premise?: ButtonPremise;
  /** A press opens a form for the person's comment first; the call runs with it when the form is sent. */
  asksComment?: true;
}

/** Stores each call as a follow-up of the message (subscriber, message key) in `place`; returns the buttons. */
export async function storeButtons(
  store: StateStore,
  calls: readonly ButtonCall[],
  place: string,
  message: Pick<IncidentOfButton, 'subscriber' | 'messageKey'>,
  ttlMs: number,
): Promise<IncidentButton[]> {
  const buttons: IncidentButton[] = [];
  for (const [index, call] of calls.entries()) {
    const incident: IncidentOfButton = {
      subscriber: message.subscriber,
      messageKey: message.messageKey,
      label: call.label,
    };
    const value = await storeFollowUp(
      store,
      {
        operation: call.operation,
        input: call.input,
        place,
        incident,
        ...(call.premise ? { premise: call.premise } : {}),
        ...(call.asksComment ? { asksComment: true as const } : {}),
      },
      ttlMs,
    );
    buttons.push({
      label: call.label,
      actionId: `${call.asksComment ? ACTION_IDS.comment : ACTION_IDS.followUp}:${index}`,
      value,
      ...(call.style ? { style: call.style } : {}),
    });
  }
  return buttons;
}

/** The message's buttons as Slack's actions block (a value too long for Slack is left out); none: undefined. */
export function buttonsBlock(buttons: readonly IncidentButton[]): Block | undefined {
  const elements = buttons
    .filter((b) => b.value.length <= LIMITS.buttonValue)
    .map((b) => ({
      type: 'button',
      action_id: b.actionId,
      value: b.value,
      text: { type: 'plain_text', text: cut(b.label, LIMITS.buttonText), emoji: true },
      ...(b.style ? { style: b.style } : {}),
    }));
  return elements.length > 0 ? { type: 'actions', elements: elements.slice(0, LIMITS.elementsPerActions) } : undefined;
}
