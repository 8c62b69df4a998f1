// Members area: the members of a group or project — direct or inherited too — and adding, changing and removing
// them. Groups and projects have the same seven calls, so both sets come from one declaration.
import { z } from 'zod';
import { accessLevel } from './shared/access-levels.js';
import { defineOperation, fields, defineArea, demoLookup, type Decisions } from '../engine/define.js';
import { membershipFacts } from './shared/member-source.js';
import { ACCESS_LEVEL_NAMES, presentList, show } from '../engine/present.js';

const presentMembers = presentList('member', (m) => [
  `@${show(m.username)}`,
  [
    show(m.name),
    ACCESS_LEVEL_NAMES[String(m.access_level)] ?? show(m.access_level),
    ...(m.expires_at ? [`until ${show(m.expires_at)}`] : []),
  ].join(' · '),
]);

const userId = () => z.number().int().positive();
const expiresAt = () =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .optional();
const filters = {
  query: z.string().optional().describe('In name or username.'),
  user_ids: z.array(z.number().int()).optional(),
};

interface Parent {
  kind: 'group' | 'project';
  id: () => z.ZodType;
  /** Owner (50) exists on groups only. */
  levels: readonly [number, ...number[]];
  /**
   * The demo data (OperationSpec.examples): the direct reads read `place`, which has a member of its own, and the reads
   * of inherited access read `inheriting`, which inherits a member of acme's.
   */
  demo: { place: string; inheriting: string };
  /** The decision of each change (OperationSpec.decisions). */
  decisions: Record<'add' | 'update' | 'remove', Decisions>;
}

/** Someone with access to every project of the demo data's group: IDs are only known once the sandbox runs. */
const memberOfAcme = demoLookup('/groups/acme/members');

function memberOperations({ kind, id, levels, demo, decisions }: Parent) {
  const base = `/${kind}s/:id/members`;
  const area = 'members' as const;
  const level = () => accessLevel(levels);
  const one = z.object({ id: id(), user_id: userId() });
  // Lists of direct and of all members take the same filters; add and update set the same level and expiry.
  const list = z.object({ id: id(), ...filters });
  const withLevel = () => one.extend({ access_level: level(), expires_at: expiresAt() });
  return [
    defineOperation({
      name: `list_${kind}_members`,
      chat: `${kind} member list`,
      area,
      title: `List ${kind} members`,
      description: `List the direct members of a ${kind} with their access levels.`,
      route: `GET ${base}`,
      input: list,
      effect: 'read',
      pagination: 'offset',
      present: presentMembers,
      examples: [{ input: { id: demo.place } }],
    }),
    defineOperation({
      name: `list_all_${kind}_members`,
      chat: `${kind} member list-all`,
      area,
      title: `List all ${kind} members`,
      description: `List everyone with access to a ${kind}, inherited access included.`,
      route: `GET ${base}/all`,
      input: list,
      effect: 'read',
      pagination: 'offset',
      present: presentMembers,
      examples: [{ input: { id: demo.inheriting } }],
    }),
    defineOperation({
      name: `get_${kind}_member`,
      chat: `${kind} member get`,
      area,
      title: `Get ${kind} member`,
      description: `Read one direct member of a ${kind}.`,
      route: `GET ${base}/:user_id`,
      input: one,
      effect: 'read',
      examples: [{ input: { id: demo.place, user_id: demoLookup(base) } }],
    }),
    defineOperation({
      name: `get_inherited_${kind}_member`,
      chat: `${kind} member get-all`,
      area,
      title: `Get ${kind} member, inherited too`,
      description: `Read one user's access to a ${kind}, direct or inherited from a parent group.`,
      route: `GET ${base}/all/:user_id`,
      input: one,
      effect: 'read',
      examples: [{ input: { id: demo.inheriting, user_id: memberOfAcme } }],
    }),
    defineOperation({
      name: `add_${kind}_member`,
      chat: `${kind} member add`,
      area,
      title: `Add ${kind} member`,
      description: `Give a user access to a ${kind} at an access level.`,
      route: `POST ${base}`,
      input: withLevel(),
      effect: 'write',
      undo: `Adds a membership and changes no other; remove_${kind}_member takes it away again. Making someone an owner (50) asks a human first.`,
      // An owner may delete the group and remove every other member, the adder included.
      needsApproval: (input) =>
        input.access_level === 50
          ? `It makes the user an owner of the ${kind}, who may then delete it and remove every other member.`
          : undefined,
      decisions: decisions.add,
    }),
    defineOperation({
      name: `update_${kind}_member`,
      chat: `${kind} member update`,
      area,
      title: `Update ${kind} member`,
      description: `Change a ${kind} member's access level or expiry date.`,
      route: `PUT ${base}/:user_id`,
      input: withLevel(),
      effect: 'write',
      undo: 'The level and expiry it replaces are kept nowhere, so a human approves every change. Access inherited from a group is refused before asking, naming the group.',
      facts: membershipFacts(kind, 'update'),
      // access_level is required, so every call overwrites it.
      needsApproval: () =>
        `It overwrites the member's access level and keeps the old one nowhere; ` +
        `read it with get_${kind}_member first if it may be needed.`,
      decisions: decisions.update,
    }),
    defineOperation({
      name: `remove_${kind}_member`,
      chat: `${kind} member remove`,
      area,
      title: `Remove ${kind} member`,
      description: `Take a user's direct membership of a ${kind} away.`,
      route: `DELETE ${base}/:user_id`,
      input: one,
      effect: 'destructive',
      undo:
        `The user loses this access at once; adding them back is a new membership whose level and expiry must be set again. ` +
        `Access inherited from parent groups stays.`,
      // The service removes only a membership of the place itself: inherited access is refused before asking, naming its group.
      facts: membershipFacts(kind, 'remove'),
      decisions: decisions.remove,
    }),
  ];
}

const membersOperations = [
  ...memberOperations({
    kind: 'group',
    id: fields.groupId,
    levels: [10, 20, 30, 40, 50],
    demo: { place: 'acme', inheriting: 'acme/platform' },
    decisions: {
      // Adding grants access and replaces nothing; an owner may delete the group and remove everyone else.
      add: {
        runs: [{ id: 'acme', user_id: 6, access_level: 40, expires_at: '2030-01-01' }],
        asks: [{ id: 'acme', user_id: 6, access_level: 50 }],
      },
      // The level it replaces is kept nowhere; access_level is required, so every call replaces it.
      update: { runs: [], asks: [{ id: 'acme', user_id: 6, access_level: 10 }] },
      remove: { runs: [], asks: [{ id: 'acme', user_id: 6 }] },
    },
  }),
  ...memberOperations({
    kind: 'project',
    id: fields.projectId,
    levels: [10, 20, 30, 40],
    // The handbook has a member of its own (test/contract/readable-answers.test.ts adds one to the demo data).
    demo: { place: 'acme/handbook', inheriting: 'acme/web' },
    decisions: {
      add: { runs: [{ id: 'acme/web', user_id: 6, access_level: 40 }], asks: [] },
      update: { runs: [], asks: [{ id: 'acme/web', user_id: 6, access_level: 40, expires_at: '2030-01-01' }] },
      remove: { runs: [], asks: [{ id: 'acme/web', user_id: 6 }] },
    },
  }),
];

export const area = defineArea({ name: 'members', operations: membersOperations });
