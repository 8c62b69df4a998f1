// SCIM provisioning data: which groups have single sign-on (a SAML provider), the SCIM form of a provisioned user,
// and the demo identities. A user is provisioned in a group while they hold that group's SAML identity; its
// extern_uid is the SCIM id.
import type { Group, Identity, Store, User } from '../../core/store.js';
import { areaState } from '../../core/area.js';

export const SAML_PROVIDER = 'group_saml';
const SCIM_USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const SCIM_LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** The user's SAML identity in this group, if provisioned there. */
function groupIdentity(store: Store, user: User, group: Group): Identity | undefined {
  const provider = samlProvidersOf(store).get(group.id);
  return user.identities.find((i) => i.provider === SAML_PROVIDER && i.saml_provider_id === provider);
}

/** Users provisioned in a group, oldest first, each with their identity there. */
export function provisioned(store: Store, group: Group): Array<{ user: User; identity: Identity }> {
  return store.users.flatMap((user) => {
    const identity = groupIdentity(store, user, group);
    return identity ? [{ user, identity }] : [];
  });
}

export function scimUserView(user: User, identity: Identity) {
  return {
    schemas: [SCIM_USER_SCHEMA],
    id: identity.extern_uid,
    active: user.state === 'active',
    name: { formatted: user.name },
    userName: user.username,
    meta: { resourceType: 'User' },
    emails: [{ type: 'work', value: user.email, primary: true }],
  };
}

/** acme has single sign-on; bob, carol and dave came through it. */
export function seedScim(store: Store, users: Map<string, User>): void {
  const acme = store.findGroup('acme')!;
  const provider = store.nextId('saml_provider');
  samlProvidersOf(store).set(acme.id, provider);
  for (const [username, uid] of [
    ['bob', '4b7e1c2a-bob'],
    ['carol', '9c3d5e7f-carol'],
    ['dave', 'd4a6b8c0-dave'],
  ]) {
    users.get(username)!.identities.push({ provider: SAML_PROVIDER, extern_uid: uid, saml_provider_id: provider });
  }
}

/** Group id → id of its SAML provider: the groups with single sign-on, which SCIM provisions. */
export const samlProvidersOf = areaState('saml_providers', () => new Map<number, number>());
