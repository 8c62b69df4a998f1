// Packages area: the packages published to a project or a group's projects, one package and its files, and delete.
import { z } from 'zod';
import { defineOperation, fields, defineArea, demoLookup } from '../engine/define.js';
import { asRecord, presentList, show, type Fields } from '../engine/present.js';
import { age } from './shared/work-items.js';

// An ID is a whole number: a fraction is refused here, before anything is sent.
const packageId = () => z.number().int().positive();
const packageInput = z.object({ id: fields.projectId(), package_id: packageId() });

/** The project path inside a package's web_path ("/acme/web/-/packages/3" → "acme/web"), when the service sent one. */
function projectOf(item: Fields): string | undefined {
  const path = asRecord(item._links).web_path;
  const match = typeof path === 'string' ? /^\/(.+?)\/-\//.exec(path) : null;
  return match?.[1];
}

/** One line per package: name version · type · project (group lists) · age. */
const presentPackages = presentList('package', (p) => [
  `#${show(p.id)}`,
  [`${show(p.name)} ${show(p.version)}`, show(p.package_type), projectOf(p), age(p.created_at)]
    .filter(Boolean)
    .join(' · '),
]);

const packagesOperations = [
  defineOperation({
    name: 'list_packages',
    chat: 'package list',
    area: 'packages',
    title: 'List packages',
    description: 'List the packages published to a project, with name, version and type.',
    route: 'GET /projects/:id/packages',
    input: z.object({ id: fields.projectId() }),
    effect: 'read',
    pagination: 'offset',
    present: presentPackages,
    examples: [{ input: { id: 'acme/platform/payments-api' } }],
  }),
  defineOperation({
    name: 'list_group_packages',
    chat: 'package list-group',
    area: 'packages',
    title: 'List group packages',
    description: "List the packages of a group's projects, subgroups included.",
    route: 'GET /groups/:id/packages',
    input: z.object({
      id: fields.groupId(),
      exclude_subgroups: z.boolean().optional(),
    }),
    effect: 'read',
    pagination: 'offset',
    present: presentPackages,
    examples: [{ input: { id: 'acme' } }],
  }),
  defineOperation({
    name: 'get_package',
    chat: 'package get',
    area: 'packages',
    title: 'Get package',
    description: 'Read one package, with its links and the pipeline that built it.',
    route: 'GET /projects/:id/packages/:package_id',
    input: packageInput,
    effect: 'read',
    examples: [{ input: { id: 'acme/platform/payments-api', package_id: demoLookup('/projects/:id/packages') } }],
  }),
  defineOperation({
    name: 'list_package_files',
    chat: 'package files',
    area: 'packages',
    title: 'List package files',
    description: "List a package's files with their size and checksums.",
    route: 'GET /projects/:id/packages/:package_id/package_files',
    input: packageInput,
    effect: 'read',
    pagination: 'offset',
    present: presentList('file', (f) => [show(f.file_name), `${show(f.size)} bytes · sha1 ${show(f.file_sha1)}`]),
    examples: [{ input: { id: 'acme/platform/payments-api', package_id: demoLookup('/projects/:id/packages') } }],
  }),
  defineOperation({
    name: 'delete_package',
    chat: 'package delete',
    area: 'packages',
    title: 'Delete package',
    description: 'Delete a package and all its files for good.',
    route: 'DELETE /projects/:id/packages/:package_id',
    input: packageInput,
    effect: 'destructive',
    undo: 'Cannot be undone: the package and every file of it are gone for good, and builds that fetch it will fail.',
    decisions: { runs: [], asks: [{ id: 'acme/web', package_id: 1 }] },
  }),
];

export const area = defineArea({ name: 'packages', operations: packagesOperations });
