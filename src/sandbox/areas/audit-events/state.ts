// Audit events of the sandbox: their record, recordAuditEvent() — the hook every route that changes something
// calls — and the demo history.
//
// The spec's entity types are User, Group and Project; a change to the instance itself (a broadcast message, the
// application settings) is recorded against the administrator who made it, as entity type User.
import type { Group, Project, Store, User } from '../../core/store.js';

export type AuditEntityType = 'User' | 'Group' | 'Project';

export interface AuditEvent {
  id: number;
  author_id: number;
  entity_id: number;
  entity_type: AuditEntityType;
  details: Record<string, unknown>;
  created_at: Date;
}

export type AuditEntity = { type: 'User'; user: User } | { type: 'Group'; group: Group } | { type: 'Project'; project: Project };

/** What changed, in the service's detail keys (add, change/from/to, custom_message, target_*); never a secret value. */
export type AuditChange = Record<string, string | number | boolean | null>;

function entityOf(entity: AuditEntity): { id: number; path: string } {
  if (entity.type === 'User') return { id: entity.user.id, path: entity.user.username };
  if (entity.type === 'Group') return { id: entity.group.id, path: entity.group.full_path };
  return { id: entity.project.id, path: entity.project.full_path };
}

/** Records a change the sandbox made: who, on what, and the details. */
export function recordAuditEvent(store: Store, author: User, entity: AuditEntity, change: AuditChange, at = new Date()): AuditEvent {
  const { id, path } = entityOf(entity);
  const event: AuditEvent = {
    id: store.nextId('audit_event'), author_id: author.id, entity_id: id, entity_type: entity.type,
    // The sandbox listens on loopback only, so every caller's address is this one.
    details: { author_name: author.name, ...change, ip_address: '127.0.0.1', entity_path: path },
    created_at: at,
  };
  store.auditEvents.push(event);
  return event;
}

const DAY = 24 * 60 * 60 * 1000;

/** The demo history, oldest first; the changes made while the sandbox runs follow it. */
export function seedAuditEvents(store: Store, epoch: number): void {
  const user = (name: string) => store.users.find((u) => u.username === name)!;
  const acme = store.findGroup('acme')!;
  const platform = store.findGroup('acme/platform')!;
  const web = store.findProject('acme/web')!;
  const at = (days: number) => new Date(epoch - days * DAY);
  const carol = user('carol');
  recordAuditEvent(store, user('root'), { type: 'Group', group: acme }, { add: 'user_access', as: 'Reporter', target_id: carol.id, target_type: 'User', target_details: carol.name }, at(40));
  recordAuditEvent(store, user('alice'), { type: 'Project', project: web }, { change: 'visibility', from: 'Private', to: 'Public', target_id: web.id, target_type: 'Project', target_details: web.full_path }, at(30));
  recordAuditEvent(store, user('bob'), { type: 'User', user: user('bob') }, { custom_message: 'Created personal access token', target_id: user('bob').id, target_type: 'User', target_details: 'bob' }, at(20));
  recordAuditEvent(store, user('root'), { type: 'Group', group: platform }, { change: 'require_two_factor_authentication', from: false, to: true, target_id: platform.id, target_type: 'Group', target_details: platform.full_path }, at(10));
  recordAuditEvent(store, user('alice'), { type: 'Group', group: acme }, { add: 'variable', target_type: 'Ci::GroupVariable', target_details: 'DEPLOY_ENV' }, at(5));
}
