// Audit events of the sandbox: their record and recordAuditEvent(), the hook every route that changes something
// calls. It is core (not the audit-events area) because every area that changes something records here; the
// audit-events area holds the routes that read the log and its demo history.
//
// The spec's entity types are User, Group and Project; a change to the instance itself (a broadcast message, the
// application settings) is recorded against the administrator who made it, as entity type User.
import { areaState } from './area.js';
import type { Group, Project, Store, User } from './store.js';

type AuditEntityType = 'User' | 'Group' | 'Project';

export interface AuditEvent {
  id: number;
  author_id: number;
  entity_id: number;
  entity_type: AuditEntityType;
  details: Record<string, unknown>;
  created_at: Date;
}

type AuditEntity =
  | { type: 'User'; user: User }
  | { type: 'Group'; group: Group }
  | { type: 'Project'; project: Project };

/** What changed, in the service's detail keys (add, change/from/to, custom_message, target_*); never a secret value. */
type AuditChange = Record<string, string | number | boolean | null>;

function entityOf(entity: AuditEntity): { id: number; path: string } {
  if (entity.type === 'User') return { id: entity.user.id, path: entity.user.username };
  if (entity.type === 'Group') return { id: entity.group.id, path: entity.group.full_path };
  return { id: entity.project.id, path: entity.project.full_path };
}

/** The audit log of a sandbox, oldest first; routes add to it with recordAuditEvent. */
export const auditEventsOf = areaState('audit_events', (): AuditEvent[] => []);

/** Records a change the sandbox made: who, on what, and the details. */
export function recordAuditEvent(
  store: Store,
  author: User,
  entity: AuditEntity,
  change: AuditChange,
  at = new Date(),
): AuditEvent {
  const { id, path } = entityOf(entity);
  const event: AuditEvent = {
    id: store.nextId('audit_event'),
    author_id: author.id,
    entity_id: id,
    entity_type: entity.type,
    // The sandbox listens on loopback only, so every caller's address is this one.
    details: { author_name: author.name, ...change, ip_address: '127.0.0.1', entity_path: path },
    created_at: at,
  };
  auditEventsOf(store).push(event);
  return event;
}
