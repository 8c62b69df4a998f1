// What a failed call means for the person who asked: the service's words, a hint for the usual statuses, and for a
// change whose answer was lost, that it may or may not have been applied and how to check.
import { ApiError, DEADLINE_CODE, isTlsFailure } from '../../http/errors.js';
import { neverReachedService } from '../../http/retry.js';
import type { Operation, OperationRoute } from './define.js';
import { InputError } from './validate.js';

export interface ExplainOptions {
  /** Every operation's route, to name the read that checks a change's outcome. */
  operations: readonly OperationRoute[];
  /** The call's overall deadline and the setting that changes it, named when a call ran out of time. */
  deadline?: { ms: number; setting: string };
  /** Where the settings that fix a failure live, so an error can name the one to change. */
  service?: ServiceSettings;
}

export interface ServiceSettings {
  /** The service address and the setting holding it, as a person should read it: "CODEHOST_URL (https://…)". */
  address: string;
  /** Where the token in use came from: 'CODEHOST_TOKEN', or e.g. a session's own header. */
  tokenSource: string;
  /** What gets a working token again, when it is not a new personal access token (a sign-in: sign in again). */
  renew?: string;
}

const STATUS_HINTS: Record<number, string> = {
  403: ' (the token can see this but lacks the access level for this action)',
  404: ' (it does not exist, or the token cannot see it: private projects answer 404 to non-members)',
};

/** A 403 to an operation only administrators may call: what a project role cannot fix. */
const ADMIN_ONLY_HINT =
  ' (this needs an administrator of the service: the token does not act as one, and no project or group role is enough)';

/**
 * The words that point a person at the setting that fixes a failure to reach the service, or ''. A 404 that is
 * not the service's own JSON, or a 404 on a route that always exists (one without parameters, such as /user),
 * means the address is not the service's API.
 */
function settingHint(op: Operation, error: ApiError, service: ServiceSettings | undefined): string {
  const where = service?.address ?? 'the service address';
  if (error.kind === 'http' && error.status === 401) {
    return ` (${service?.tokenSource ?? 'the service token'} is missing, wrong or expired: ${service?.renew ?? 'create a new personal access token'})`;
  }
  if (error.kind === 'http' && error.status === 404 && (!error.jsonBody || op.pathParams.length === 0)) {
    return ` (this answer did not come from the service's API: check that ${where} is the service's address, with the right path prefix; the API must answer under /api/v4)`;
  }
  if (isTlsFailure(error)) {
    return ` (the TLS certificate of ${where} could not be verified: if it is signed by a private CA, set CODEHOST_CA_FILE to that CA's PEM file)`;
  }
  if (error.kind === 'network' && neverReachedService(error)) {
    return ` (check ${where}: is the address right, and the service running?)`;
  }
  return '';
}

/** Gateway answers: the service behind the gateway may have acted before the answer was lost. */
const UNKNOWN_OUTCOME_STATUSES = new Set([502, 503, 504]);

/** Did this change perhaps reach the service and run, with no answer to say so? */
export function outcomeUnknown(op: Operation, error: unknown): boolean {
  if (op.effect === 'read' || !(error instanceof ApiError) || neverReachedService(error)) return false;
  if (error.kind === 'http') return UNKNOWN_OUTCOME_STATUSES.has(error.status);
  return error.kind === 'timeout' || error.kind === 'network' || error.kind === 'aborted';
}

/**
 * The read that shows whether a change happened: the GET of the same route (a file, a release), of its list
 * (POST …/pipeline → GET …/pipelines), or of the resource above it (…/pipelines/:pipeline_id/retry → the pipeline).
 */
function checkingOperation(op: OperationRoute, operations: readonly OperationRoute[]): OperationRoute | undefined {
  // A composed read (wait_for_pipeline) shares its part's route; the plain read is the one that checks.
  const reads = new Map(operations.filter((o) => o.method === 'GET' && !o.composedOf).map((o) => [o.path, o]));
  for (let path = op.path; path.includes('/'); path = path.slice(0, path.lastIndexOf('/'))) {
    const found = reads.get(path) ?? reads.get(`${path}s`);
    if (found && found.name !== op.name) return found;
  }
  return undefined;
}

export function explainFailure(op: Operation, error: unknown, options: ExplainOptions): string {
  if (error instanceof InputError) return `${error.message}. Nothing was sent.`;
  if (!(error instanceof ApiError)) {
    return `forgeops error: ${error instanceof Error ? error.message : String(error)}`;
  }
  let text = error.message;
  if (error.errorCode) text += ` [error_code: ${error.errorCode}]`;
  const hint = settingHint(op, error, options.service);
  if (hint) text += hint;
  else if (error.kind === 'http' && error.status === 403 && op.adminOnly) text += ADMIN_ONLY_HINT;
  else if (error.kind === 'http') text += STATUS_HINTS[error.status] ?? '';
  if (error.code === DEADLINE_CODE && options.deadline) {
    text += ` (the call's deadline is ${Number((options.deadline.ms / 1000).toFixed(1))} s, set by ${options.deadline.setting})`;
  }
  if (outcomeUnknown(op, error)) {
    const check = checkingOperation(op, options.operations);
    text =
      `No answer came for ${op.name} (${text}), so it may or may not have been applied. forgeops did not send ` +
      `it again. ${check ? `Check with ${check.name}` : 'Check the service'} before trying again.`;
  } else if (error.kind === 'timeout' || error.kind === 'network') {
    text += op.effect === 'read' ? '' : ' Nothing was changed: the request never reached the service.';
  }
  return text;
}
