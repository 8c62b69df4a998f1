// The branches area's state: each project's protected branches (names or wildcards with push and merge access
// levels). A project's default branch starts protected (maintainers push and merge), as on the service.
import { areaState } from '../../core/area.js';
import type { Project, Store } from '../../core/store.js';

export interface AccessLevelRule {
  id: number;
  access_level: number;
  access_level_description: string;
  user_id: null;
  group_id: null;
}

export interface ProtectedBranch {
  id: number;
  name: string;
  push_access_levels: AccessLevelRule[];
  merge_access_levels: AccessLevelRule[];
  allow_force_push: boolean;
  code_owner_approval_required: boolean;
}

const DESCRIPTIONS: Record<number, string> = { 0: 'No one', 30: 'Developers + Maintainers', 40: 'Maintainers', 60: 'Admins' };

const protectionsOf = areaState('protected_branches', () => ({ byProject: new Map<number, ProtectedBranch[]>(), nextId: 1 }));

export function accessRule(store: Store, level: number): AccessLevelRule {
  const state = protectionsOf(store);
  return { id: state.nextId++, access_level: level, access_level_description: DESCRIPTIONS[level] ?? String(level), user_id: null, group_id: null };
}

/** The project's protections (the default branch protected on first use). */
export function protectedBranches(store: Store, project: Project): ProtectedBranch[] {
  const state = protectionsOf(store);
  let list = state.byProject.get(project.id);
  if (list === undefined) {
    list = [];
    state.byProject.set(project.id, list);
    list.push(newProtection(store, project.default_branch, 40, 40, false));
  }
  return list;
}

export function newProtection(store: Store, name: string, push: number, merge: number, allowForcePush: boolean): ProtectedBranch {
  const state = protectionsOf(store);
  return {
    id: state.nextId++,
    name,
    push_access_levels: [accessRule(store, push)],
    merge_access_levels: [accessRule(store, merge)],
    allow_force_push: allowForcePush,
    code_owner_approval_required: false,
  };
}

/** Whether a protection's name (exact, or with * wildcards matching any characters) covers a branch. */
export function protectionMatches(protection: ProtectedBranch, branch: string): boolean {
  if (!protection.name.includes('*')) return protection.name === branch;
  const pattern = protection.name.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${pattern}$`, 's').test(branch);
}

/** The protections covering a branch. */
export function protectionsFor(store: Store, project: Project, branch: string): ProtectedBranch[] {
  return protectedBranches(store, project).filter((p) => protectionMatches(p, branch));
}
