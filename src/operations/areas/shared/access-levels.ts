// An access-level field, defined once for every operation that takes one (members, project and group filters,
// protected branches): the service's number or its name (`developer`), the name turned into the number it sends.
import { z } from 'zod';
import { ACCESS_LEVEL_NAMES } from '../../engine/present.js';

/**
 * The levels `levels` by number or by name. The schema lists both and pairs them in its description, so a model, a
 * chat line and a Slack command may all say `developer`; what is validated, judged and sent is the number (30).
 */
export function accessLevel<const L extends readonly [number, ...number[]]>(levels: L) {
  const names = levels.map((level) => {
    const name = ACCESS_LEVEL_NAMES[level];
    if (!name) throw new Error(`access level ${level} has no name in ACCESS_LEVEL_NAMES`);
    return name;
  }) as [string, ...string[]];
  return z
    .union([z.literal(levels), z.enum(names).transform((name) => levels[names.indexOf(name)] as L[number])])
    .describe(`${levels.map((level, i) => `${level} ${names[i]}`).join(', ')}.`);
}
