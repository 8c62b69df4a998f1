// Project webhooks of the sandbox: the stored hooks per store, their event switches, and what their last delivery
// did. The secret token is kept here and only sent in deliveries; no answer ever shows it.
import { areaState } from '../../core/area.js';

/** The event switches a hook stores, with the service's defaults (push events on, the rest off). */
export const EVENT_FLAGS = {
  push_events: true,
  issues_events: false,
  confidential_issues_events: false,
  merge_requests_events: false,
  tag_push_events: false,
  note_events: false,
  confidential_note_events: false,
  job_events: false,
  pipeline_events: false,
  wiki_page_events: false,
  deployment_events: false,
  releases_events: false,
} as const;

export type EventFlag = keyof typeof EVENT_FLAGS;

/** How the last delivery went: the receiver's HTTP status, or why none came back (timeout, refused, …). */
interface DeliveryStatus {
  at: Date;
  event: string;
  status: number | null;
  error: string | null;
}

export interface ProjectHook extends Record<EventFlag, boolean> {
  id: number;
  project_id: number;
  url: string;
  name: string;
  description: string;
  /** Write-only: sent as X-Gitlab-Token, never answered. */
  token: string | null;
  push_events_branch_filter: string;
  enable_ssl_verification: boolean;
  created_at: Date;
  last_delivery: DeliveryStatus | null;
}

export const hooksOf = areaState('project_hooks', () => ({ hooks: [] as ProjectHook[] }));
