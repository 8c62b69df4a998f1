// Group export and import in the sandbox: the archive (gzip-compressed JSON of the group's settings, labels,
// members and subgroups, as the spec lists what an export holds), when an export is ready, and rebuilding a
// group tree from an archive. The service builds an export in the background: here it is ready
// GroupExports.delayMs after it was requested, so a client meets the 404 of "not yet" first.
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  ACCESS_LEVELS,
  type AccessLevel,
  type Group,
  type Store,
  type User,
  type Visibility,
} from '../../core/store.js';
import { areaState } from '../../core/area.js';
import { addLabel, workItemsOf } from '../work-items/index.js';

const FORMAT = 'forgeops-sandbox-group-export/1';

interface ExportedGroup {
  name: string;
  path: string;
  description: string;
  visibility: Visibility;
  labels: Array<{ name: string; color: string; description: string | null }>;
  members: Array<{ username: string; access_level: AccessLevel }>;
  subgroups: ExportedGroup[];
}

interface PendingExport {
  readyAt: number;
  archive: Buffer;
}

/** Export archives by group id; a new export replaces the earlier one. */
class GroupExports {
  delayMs = 1000;
  private readonly exports = new Map<number, PendingExport>();

  start(store: Store, group: Group, now = Date.now()): void {
    this.exports.set(group.id, {
      readyAt: now + this.delayMs,
      archive: gzipSync(JSON.stringify({ format: FORMAT, group: exportGroup(store, group) })),
    });
  }

  /** The archive once it is ready; undefined before (or when no export was ever requested). */
  ready(group: Group, now = Date.now()): Buffer | undefined {
    const pending = this.exports.get(group.id);
    return pending && pending.readyAt <= now ? pending.archive : undefined;
  }
}

function exportGroup(store: Store, group: Group): ExportedGroup {
  return {
    name: group.name,
    path: group.path,
    description: group.description,
    visibility: group.visibility,
    labels: (workItemsOf(store).labels.get(`group:${group.id}`) ?? []).map(({ name, color, description }) => ({
      name,
      color,
      description,
    })),
    members: [...group.members].map(([id, m]) => ({
      username: store.users.find((u) => u.id === id)?.username ?? '',
      access_level: m.access_level,
    })),
    subgroups: store.groups.filter((g) => g.parent_id === group.id).map((g) => exportGroup(store, g)),
  };
}

/** The group tree of an archive, or undefined when the bytes are not a sandbox group export. */
export function readExportArchive(bytes: Buffer): ExportedGroup | undefined {
  try {
    const parsed = JSON.parse(gunzipSync(bytes).toString('utf8')) as { format?: unknown; group?: ExportedGroup };
    return parsed.format === FORMAT && parsed.group && typeof parsed.group.name === 'string' ? parsed.group : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Creates the archive's group under a new name and path (and parent), then its labels, its members that exist
 * here, and its subgroups; the importer becomes an owner of the new top group.
 */
export function importGroup(
  store: Store,
  tree: ExportedGroup,
  target: { name: string; path: string; parent?: Group },
  importer: User,
): Group {
  const build = (node: ExportedGroup, name: string, path: string, parent: Group | undefined): Group => {
    const group = store.addGroup({ name, path, parent, description: node.description, visibility: node.visibility });
    for (const label of node.labels) addLabel(store, `group:${group.id}`, { ...label, priority: null });
    for (const member of node.members) {
      const user = store.users.find((u) => u.username === member.username);
      if (user && ACCESS_LEVELS.includes(member.access_level))
        group.members.set(user.id, { access_level: member.access_level, expires_at: null, created_at: new Date() });
    }
    for (const child of node.subgroups) build(child, child.name, child.path, group);
    return group;
  };
  const top = build(tree, target.name, target.path, target.parent);
  top.members.set(importer.id, { access_level: 50, expires_at: null, created_at: new Date() });
  return top;
}

/** Group export archives. */
export const groupExportsOf = areaState('group_exports', () => new GroupExports());
