// Keys area: look up an SSH public key, and the user it belongs to, by its ID or its fingerprint (administrators).
import { z } from 'zod';
import { defineOperation, defineArea } from '../engine/define.js';

const keysOperations = [
  defineOperation({
    name: 'get_ssh_key',
    chat: 'key get',
    area: 'keys',
    title: 'Get SSH key',
    description: 'Administrators only: an SSH key by ID, with the user it belongs to.',
    adminOnly: true,
    route: 'GET /keys/:id',
    input: z.object({ id: z.number().int().positive().describe('Key ID.') }),
    effect: 'read',
    // The sandbox's first seeded demo key (its seed is deterministic).
    examples: [{ input: { id: 1 } }],
  }),
  defineOperation({
    name: 'find_ssh_key',
    chat: 'key find',
    area: 'keys',
    title: 'Find SSH key by fingerprint',
    description: 'Administrators only: find whose SSH key has this fingerprint.',
    adminOnly: true,
    route: 'GET /keys',
    input: z.object({
      fingerprint: z.string().min(1).describe('MD5 ("aa:bb:…") or "SHA256:…".'),
    }),
    effect: 'read',
    // The sandbox's first seeded demo key (its seed is deterministic).
    examples: [{ input: { fingerprint: 'SHA256:5wlBEzeOGqThe3m9Cn/YQMBdEoNQ7QSV0bElGEF/gs8' } }],
  }),
];

export const area = defineArea({ name: 'keys', operations: keysOperations });
