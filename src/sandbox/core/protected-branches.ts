// Protected branches: each project's rules (names or wildcards with push and merge access levels) and how the
// service applies them to every push, merge, forced commit, branch creation and deletion and to the jobs of a ref.
// They are access rules every area that writes to a branch obeys, so they live in the core; the branches area
// serves their API. A project's default branch starts protected (maintainers push and merge), as on the service.
import { areaState } from './area.js';
import { ACCESS, type Project, type Store, type User } from './store.js';

interface AccessLevelRule {
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

/** The access levels a rule may name: 0 no one, 30 developers, 40 maintainers, 60 administrators. */
export const PROTECTION_LEVELS = [0, 30, 40, 60] as const;
const NO_ONE = 0;
const ADMINS = 60;

const DESCRIPTIONS: Record<number, string> = {
  0: 'No one',
  30: 'Developers + Maintainers',
  40: 'Maintainers',
  60: 'Admins',
};

const protectionsOf = areaState('protected_branches', () => ({
  byProject: new Map<number, ProtectedBranch[]>(),
  nextId: 1,
}));

function accessRule(store: Store, level: number): AccessLevelRule {
  const state = protectionsOf(store);
  return {
    id: state.nextId++,
    access_level: level,
    access_level_description: DESCRIPTIONS[level] ?? String(level),
    user_id: null,
    group_id: null,
  };
}

/** The project's protections (the default branch protected on first use). */
export function protectedBranches(store: Store, project: Project): ProtectedBranch[] {
  const state = protectionsOf(store);
  let list = state.byProject.get(project.id);
  if (list === undefined) {
    list = [];
    state.byProject.set(project.id, list);
    list.push(newProtection(store, project.default_branch, { push: ACCESS.maintainer, merge: ACCESS.maintainer }));
  }
  return list;
}

export function newProtection(
  store: Store,
  name: string,
  levels: { push: number; merge: number; allowForcePush?: boolean },
): ProtectedBranch {
  const state = protectionsOf(store);
  return {
    id: state.nextId++,
    name,
    push_access_levels: [accessRule(store, levels.push)],
    merge_access_levels: [accessRule(store, levels.merge)],
    allow_force_push: levels.allowForcePush ?? false,
    code_owner_approval_required: false,
  };
}

/** Whether a protection's name (exact, or with * wildcards matching any characters) covers a branch. */
function protectionMatches(protection: ProtectedBranch, branch: string): boolean {
  if (!protection.name.includes('*')) return protection.name === branch;
  const pattern = protection.name
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`, 's').test(branch);
}

/** The protections covering a branch. */
export function protectionsFor(store: Store, project: Project, branch: string): ProtectedBranch[] {
  return protectedBranches(store, project).filter((p) => protectionMatches(p, branch));
}

/** Whether a caller with this project access passes one access level of a rule (0: nobody, 60: administrators only). */
function passes(level: number, user: User, access: number): boolean {
  if (level === NO_ONE) return false;
  if (level === ADMINS) return user.is_admin;
  return access >= level;
}

/**
 * What a caller may do on a branch, with `access` their project access (admins count as owners). Pushing and
 * merging need developer access at least; on a protected branch the most permissive of the rules matching it
 * decides (wildcards included), as the service documents, and so does force push.
 */
interface BranchPermissions {
  protected: boolean;
  push: boolean;
  merge: boolean;
  /** A push that rewrites history: refused on a protected branch unless a matching rule allows force push. */
  forcePush: boolean;
  /** Deleting the branch: a protected one takes a maintainer. */
  delete: boolean;
}

export function branchPermissions(
  store: Store,
  project: Project,
  user: User | null,
  access: number,
  branch: string,
): BranchPermissions {
  const collaborator = user !== null && access >= ACCESS.developer;
  const rules = protectionsFor(store, project, branch);
  if (rules.length === 0)
    return { protected: false, push: collaborator, merge: collaborator, forcePush: collaborator, delete: collaborator };
  const any = (levels: (p: ProtectedBranch) => AccessLevelRule[]) =>
    collaborator && rules.some((p) => levels(p).some((rule) => passes(rule.access_level, user, access)));
  const push = any((p) => p.push_access_levels);
  return {
    protected: true,
    push,
    merge: any((p) => p.merge_access_levels),
    forcePush: push && rules.some((p) => p.allow_force_push),
    delete: collaborator && access >= ACCESS.maintainer,
  };
}

/** The service's refusals of a protected branch change, word for word (its pre-receive check). */
export const PROTECTED_BRANCH_REFUSALS = {
  push: 'You are not allowed to push code to protected branches on this project.',
  forcePush: 'You are not allowed to force push code to a protected branch on this project.',
  create: 'You are not allowed to create protected branches on this project.',
  delete:
    'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
  deleteDefault: 'The default branch of a project cannot be deleted.',
} as const;
