// Follow-up buttons (Retry, Next page, the incident message's buttons): each button carries a short reference to a
// call kept in the state store, bound to the channel it was posted in; the call runs as whoever presses it.
import { randomBytes } from 'node:crypto';
import type { ButtonPremise } from '../operations/composed/button-premise.js';
import type { StateStore } from '../state/store.js';

/** How long a follow-up button keeps working. */
export const FOLLOW_UP_TTL_MS = 24 * 60 * 60_000;
/** Follow-up references held at once; above it, answers come without buttons. */
export const MAX_FOLLOW_UPS = 20_000;

export const followUpKey = (ref: string) => `followup:${ref}`;

/** The incident message a button belongs to: its press and outcome go to that message's thread. */
export interface IncidentOfButton {
  /** The watch subscriber (`slack:<team>:<channel>`) and the key of the message's ts. */
  subscriber: string;
  messageKey: string;
  /** The button's label, as the timeline names it. */
  label: string;
}

export interface FollowUpRef {
  operation: string;
  input: Record<string, unknown>;
  /** The channel it was posted in: a click elsewhere (a forwarded value) runs nothing. */
  place: string;
  incident?: IncidentOfButton;
  /** What the button assumed when drawn (an incident message's): checked as the presser before anything runs. */
  premise?: ButtonPremise;
  /**
   * The button opens a form for a comment first (Reject on a deployment message): its call runs with the comment as
   * its `comment` input, when the form is sent. Only such a button's call ever takes one.
   */
  asksComment?: true;
}

/** Whether `count` more references fit under the cap. */
export async function roomForFollowUps(store: StateStore, count: number): Promise<boolean> {
  return (await store.count('followup:')) + count <= MAX_FOLLOW_UPS;
}

/** Stores one button's call; its reference is the button's value. */
export async function storeFollowUp(store: StateStore, ref: FollowUpRef, ttlMs = FOLLOW_UP_TTL_MS): Promise<string> {
  const id = randomBytes(12).toString('base64url');
  await store.set(followUpKey(id), ref, { ttlMs });
  return id;
}
