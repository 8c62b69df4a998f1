// Making private things public, judged by effect: a change of `confidential` or `visibility` that lets more people
// read something that exists already (an issue's incident report, a snippet) asks a human first. Whether it widens
// depends on the setting now, read before the policy decides; every operation with such a field declares these facts.
import { buildPath } from '../../../http/route.js';
import type { EffectFacts } from '../../engine/define.js';
import { serviceGet } from '../../engine/effect-facts.js';
import { asRecord } from '../../engine/present.js';

/** Who may read an item now, as far as these two settings say. */
interface Exposure {
  confidential?: boolean;
  visibility?: string;
}

/** The input fields that widen who reads an item. */
export const EXPOSURE_FIELDS = ['confidential', 'visibility'] as const;

const WIDTH: Record<string, number> = { private: 0, internal: 1, public: 2 };
const READERS: Record<string, string> = {
  internal: 'every signed-in user of the instance can then read it',
  public: 'anyone can then read it, signed in or not',
};

/** Whether this input may widen who reads the item, depending on what it is now. */
function mayWiden(input: Record<string, unknown>): boolean {
  return input.confidential === false || (typeof input.visibility === 'string' && (WIDTH[input.visibility] ?? 0) > 0);
}

/** The facts of a change to the item at `path` (its own GET): its confidential flag and visibility now. */
export function exposureFacts<I extends Record<string, unknown>>(noun: string, path: string): EffectFacts<I, Exposure> {
  return {
    what: `whether the ${noun} is confidential or private now`,
    needed: mayWiden,
    read: async (ctx, input) => {
      const item = asRecord(await serviceGet(ctx, buildPath(path, input)));
      return {
        ...(typeof item.confidential === 'boolean' ? { confidential: item.confidential } : {}),
        ...(typeof item.visibility === 'string' ? { visibility: item.visibility } : {}),
      };
    },
  };
}

/** Why making the item readable by more people needs a human; undefined when it widens nothing. */
export function exposureReason(
  noun: string,
  input: Record<string, unknown>,
  now: Exposure | undefined,
): string | undefined {
  if (!now) return undefined;
  if (input.confidential === false && now.confidential === true) {
    return (
      `It makes a confidential ${noun} readable by everyone who can see the project (anyone, on a public project); ` +
      'now only its author, assignees and members with at least reporter access can.'
    );
  }
  const to = input.visibility;
  const widens = typeof to === 'string' && (WIDTH[to] ?? 0) > 0;
  if (widens && now.visibility !== undefined && (WIDTH[to] ?? 0) > (WIDTH[now.visibility] ?? 0)) {
    return `It makes the ${noun} ${to} (now ${now.visibility}): ${READERS[to] ?? 'more people can then read it'}.`;
  }
  // The service's answer did not say: what it may open is unknown, so a human decides.
  if ((input.confidential === false && now.confidential === undefined) || (widens && now.visibility === undefined)) {
    return `The service did not say whether the ${noun} is confidential or private now, and this call may let more people read it; so a human decides.`;
  }
  return undefined;
}

/** Reasons joined into one, or undefined when none applies. */
export function reasons(...parts: Array<string | undefined>): string | undefined {
  const given = parts.filter((part): part is string => part !== undefined);
  return given.length > 0 ? given.join(' ') : undefined;
}
