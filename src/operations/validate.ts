// Input validation shared by every front end: zod issues become one error that names each bad field.
import type { z } from 'zod';
import type { Operation } from './define.js';

export interface InputIssue {
  /** Dotted path of the field ('actions.0.file_path'), or '' for the input as a whole. */
  field: string;
  message: string;
}

export class InputError extends Error {
  constructor(readonly operation: string, readonly issues: InputIssue[]) {
    super(`Invalid input for ${operation}: ${issues.map((i) => (i.field ? `${i.field}: ${i.message}` : i.message)).join('; ')}`);
    this.name = 'InputError';
  }
}

function describeIssue(issue: z.core.$ZodIssue): InputIssue {
  const field = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return { field, message: `unknown parameter${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}` };
  }
  return { field, message: issue.message };
}

/** Parses raw input with the operation's (strict) schema; unknown keys are an error, so a misspelt field is never dropped. */
export function validateInput<S extends z.ZodObject>(op: Operation<S>, raw: unknown): z.infer<S> {
  const result = op.input.safeParse(raw ?? {});
  if (!result.success) throw new InputError(op.name, result.error.issues.map(describeIssue));
  return result.data as z.infer<S>;
}
