// The release form (`/forge release create` with no arguments): the modal, its answers read back as create_release's
// arguments, and failures (our validation, the service's refusal) keyed to the form's blocks. Pure: no I/O.
import type { ApiError } from '../http/errors.js';
import type { InputIssue } from '../operations/engine/validate.js';
import { cut } from './blocks.js';
import { show } from '../operations/engine/present.js';

export const RELEASE_VIEW = 'forge_release';
export const RELEASE_OPERATION = 'create_release';
/** Each input's block id is the field of create_release it fills, so an error about a field names its block. */
const RELEASE_FIELDS = ['id', 'tag_name', 'ref', 'name', 'description', 'milestones'] as const;
type ReleaseField = (typeof RELEASE_FIELDS)[number];
const INPUT_ACTION = 'value';
/** Slack shows a modal error under its block in a line or two. */
const MAX_ERROR_CHARS = 300;

/** Where the form was opened: carried through Slack in private_metadata, so the outcome goes back to that channel. */
interface ReleaseFormOrigin {
  channelId: string;
  responseUrl?: string;
}

interface InputSpec {
  label: string;
  hint?: string;
  optional?: boolean;
  multiline?: boolean;
  placeholder?: string;
}

const INPUTS: Record<ReleaseField, InputSpec> = {
  id: { label: 'Project', placeholder: 'acme/web' },
  tag_name: { label: 'Tag name', placeholder: 'v1.4.0' },
  ref: {
    label: 'Create the tag from',
    optional: true,
    placeholder: 'main',
    hint: 'A branch, tag or commit; needed only when the tag does not exist yet.',
  },
  name: { label: 'Release name', optional: true },
  description: { label: 'Release notes', multiline: true, hint: 'Markdown.' },
  milestones: { label: 'Milestones', optional: true, placeholder: 'v1.4, Q3', hint: 'Titles, separated by commas.' },
};

/** The form, with the project filled in when the command named one (or the channel has a default). */
export function releaseView(origin: ReleaseFormOrigin, project?: string): Record<string, unknown> {
  const blocks = RELEASE_FIELDS.map((field) => {
    const spec = INPUTS[field];
    return {
      type: 'input',
      block_id: field,
      optional: spec.optional ?? false,
      label: { type: 'plain_text', text: spec.label },
      ...(spec.hint ? { hint: { type: 'plain_text', text: spec.hint } } : {}),
      element: {
        type: 'plain_text_input',
        action_id: INPUT_ACTION,
        multiline: spec.multiline ?? false,
        ...(spec.placeholder ? { placeholder: { type: 'plain_text', text: spec.placeholder } } : {}),
        ...(field === 'id' && project ? { initial_value: project } : {}),
      },
    };
  });
  return {
    type: 'modal',
    callback_id: RELEASE_VIEW,
    private_metadata: JSON.stringify(origin),
    title: { type: 'plain_text', text: 'Create a release' },
    submit: { type: 'plain_text', text: 'Create' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks,
  };
}

/** The origin a submitted form carries; undefined when it is not ours. */
export function releaseOrigin(privateMetadata: string | undefined): ReleaseFormOrigin | undefined {
  try {
    const parsed = JSON.parse(privateMetadata ?? '') as Partial<ReleaseFormOrigin>;
    if (typeof parsed.channelId !== 'string') return undefined;
    return {
      channelId: parsed.channelId,
      ...(typeof parsed.responseUrl === 'string' ? { responseUrl: parsed.responseUrl } : {}),
    };
  } catch {
    return undefined;
  }
}

type StateValues = Record<string, Record<string, { value?: string | null }>>;

/** The form's answers as create_release's raw arguments: empty fields left out, milestones split on commas. */
export function releaseArguments(values: StateValues): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const field of RELEASE_FIELDS) {
    const raw = values[field]?.[INPUT_ACTION]?.value ?? '';
    // Notes keep their own line breaks and indentation; a one-line field is trimmed.
    const value = field === 'description' ? raw.replace(/^\s*\n|\s+$/g, '') : raw.trim();
    if (!value) continue;
    args[field] =
      field === 'milestones'
        ? value
            .split(',')
            .map((m) => m.trim())
            .filter(Boolean)
        : value;
  }
  return args;
}

export type FormErrors = Partial<Record<ReleaseField, string>>;

function isField(name: string): name is ReleaseField {
  return (RELEASE_FIELDS as readonly string[]).includes(name);
}

function add(errors: FormErrors, field: ReleaseField, message: string): void {
  errors[field] = cut(errors[field] ? `${errors[field]}; ${message}` : message, MAX_ERROR_CHARS);
}

/** Our validation's issues under the blocks of their fields; an issue of no one field goes under the project. */
export function inputErrors(issues: readonly InputIssue[]): FormErrors {
  const errors: FormErrors = {};
  for (const issue of issues) {
    const field = issue.field.split('.')[0];
    add(errors, isField(field) ? field : 'id', issue.message);
  }
  return errors;
}

/**
 * The service's refusal under the block it is about: its field errors by name; otherwise "already exists" (409) is
 * the tag's, a message naming the ref given ("Target nope is invalid") or a ref at all ("Ref is not specified") is
 * the ref's, and anything else (a missing project, no permission) the project's.
 */
export function serviceErrors(
  error: Partial<Pick<ApiError, 'status' | 'fieldErrors'>> | undefined,
  message: string,
  args: Record<string, unknown>,
): FormErrors {
  const errors: FormErrors = {};
  for (const [name, messages] of Object.entries(error?.fieldErrors ?? {})) {
    add(
      errors,
      isField(name) ? name : name === 'base' ? 'tag_name' : 'id',
      isField(name) ? messages.join('; ') : `${name} ${messages.join('; ')}`,
    );
  }
  if (Object.keys(errors).length > 0) return errors;
  const first = message.split('\n')[0];
  const aboutRef = (typeof args.ref === 'string' && first.includes(args.ref)) || /\bref\b/i.test(first);
  const field: ReleaseField = error?.status === 409 ? 'tag_name' : aboutRef ? 'ref' : 'id';
  // A blank ref is only wrong for a tag that does not exist yet: say so in words, under the ref.
  const text =
    field === 'ref' && (args.ref === undefined || args.ref === '')
      ? `${show(args.tag_name)} is not a tag yet: name the branch, tag or commit to create it from (the service said: ${first})`
      : first;
  add(errors, field, text);
  return errors;
}
