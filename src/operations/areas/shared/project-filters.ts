// What every project list takes (the instance's, a user's and a group's projects): the spec gives them one set of
// filters, used by the projects and groups areas.
import { z } from 'zod';
import { accessLevel as levelField } from './access-levels.js';

/** A yes/no filter; only those whose name does not say what they do get a text. */
export const flag = (what?: string) =>
  what === undefined ? z.boolean().optional() : z.boolean().optional().describe(what);

/** The spec's project orders (the group project list has the same). */
const PROJECT_ORDER = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at'] as const;
export const accessLevel = () => levelField([10, 20, 30, 40, 50]);

/** Filters every project list takes (instance, user and group lists). */
export const projectFilters = {
  search: z.string().optional().describe('In name, path or description.'),
  archived: flag(),
  visibility: z.enum(['public', 'internal', 'private']).optional(),
  order_by: z.enum(PROJECT_ORDER).optional(),
  sort: z.enum(['asc', 'desc']).optional(),
  simple: flag('Fewer fields.'),
  owned: flag(),
  starred: flag(),
  with_custom_attributes: flag('Administrators.'),
  with_issues_enabled: flag(),
  with_merge_requests_enabled: flag(),
  min_access_level: accessLevel().optional(),
};
