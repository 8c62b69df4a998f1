// The demo audit history: a few changes by the demo accounts before the sandbox started, oldest first.
import { recordAuditEvent } from '../../core/audit.js';
import type { Store } from '../../core/store.js';

const DAY = 24 * 60 * 60 * 1000;

/** The demo history, oldest first; the changes made while the sandbox runs follow it. */
export function seedAuditEvents(store: Store, epoch: number): void {
  const user = (name: string) => store.users.find((u) => u.username === name)!;
  const acme = store.findGroup('acme')!;
  const platform = store.findGroup('acme/platform')!;
  const web = store.findProject('acme/web')!;
  const at = (days: number) => new Date(epoch - days * DAY);
  const carol = user('carol');
  recordAuditEvent(
    store,
    user('root'),
    { type: 'Group', group: acme },
    { add: 'user_access', as: 'Reporter', target_id: carol.id, target_type: 'User', target_details: carol.name },
    at(40),
  );
  recordAuditEvent(
    store,
    user('alice'),
    { type: 'Project', project: web },
    {
      change: 'visibility',
      from: 'Private',
      to: 'Public',
      target_id: web.id,
      target_type: 'Project',
      target_details: web.full_path,
    },
    at(30),
  );
  recordAuditEvent(
    store,
    user('bob'),
    { type: 'User', user: user('bob') },
    {
      custom_message: 'Created personal access token',
      target_id: user('bob').id,
      target_type: 'User',
      target_details: 'bob',
    },
    at(20),
  );
  recordAuditEvent(
    store,
    user('root'),
    { type: 'Group', group: platform },
    {
      change: 'require_two_factor_authentication',
      from: false,
      to: true,
      target_id: platform.id,
      target_type: 'Group',
      target_details: platform.full_path,
    },
    at(10),
  );
  recordAuditEvent(
    store,
    user('alice'),
    { type: 'Group', group: acme },
    { add: 'variable', target_type: 'Ci::GroupVariable', target_details: 'DEPLOY_ENV' },
    at(5),
  );
}
