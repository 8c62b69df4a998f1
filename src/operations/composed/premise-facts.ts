// What a button assumed when it was drawn, beside its kind and its project: one shape for a Slack message's buttons
// and the triage view's (check_button_premise's input), both checked by the same PremiseCheck. Imports nothing, so
// the view, a page built for the browser on its own, takes the type without any server code.

/** The facts a button's premise names; which of them it carries depends on its kind. */
export interface PremiseFacts {
  /** The watched branch (the default branch). */
  ref: string;
  /** The red pipeline the button was drawn on (the branch's latest then). */
  pipeline_id?: number;
  /** The commit a revert names; for a merge, the merge request's head when the button was drawn. */
  sha?: string;
  /** The open merge request (a revert of the culprit) a merge or its pipeline's retry acts on. */
  merge_request_iid?: number;
  /** A rollback or a deployment message: the deployment the button acts on (what the environment ran then). */
  deployment_id?: number;
  /** The environment of that deployment, by name. */
  environment?: string;
}
