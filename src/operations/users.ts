// Users area: who the configured token acts as (the current user).
import { z } from 'zod';
import { defineOperation } from './define.js';

export const usersOperations = [
  defineOperation({
    name: 'get_current_user',
    chat: 'user me',
    area: 'users',
    title: 'Get current user',
    description:
      'Show the account the token acts as: id, username, name, state, web_url and profile fields (plus email ' +
      'and is_admin for administrators). Use it to check which identity and permissions a call will have. ' +
      'Administrators may pass sudo to see another user as that user sees themselves.',
    route: 'GET /user',
    input: z.object({
      sudo: z.number().int().positive().optional()
        .describe('Administrators only: the user ID to act as for this call.'),
    }),
    effect: 'read',
  }),
];
