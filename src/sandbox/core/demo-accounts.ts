// The sandbox's demo accounts: users of every access level with fixed tokens and passwords, documented in the README.
//
// Demo tokens (send as `PRIVATE-TOKEN`; the SCIM one as `Authorization: Bearer`); each account signs in on the OAuth
// provider's page with the password `<username>-sandbox-password` (demoPassword):
//
//   role        user    token                          what they can do
//   admin       root    fo-admin-sandbox-token         instance administrator: sees and may do everything
//   maintainer  alice   fo-maintainer-sandbox-token    maintainer (40) of group acme and everything in it
//   developer   bob     fo-developer-sandbox-token     developer (30) of acme; owns the personal project bob/scratchpad
//   reporter    carol   fo-reporter-sandbox-token      reporter (20) of acme
//   guest       dave    fo-guest-sandbox-token         guest (10) of acme
//   outsider    erin    fo-outsider-sandbox-token      signed in, member of nothing: sees only public and internal
//   scim        -       fo-scim-sandbox-token          SCIM provisioning of group acme
import type { AccessLevel } from './store.js';

export const DEMO_TOKENS = {
  admin: 'fo-admin-sandbox-token',
  maintainer: 'fo-maintainer-sandbox-token',
  developer: 'fo-developer-sandbox-token',
  reporter: 'fo-reporter-sandbox-token',
  guest: 'fo-guest-sandbox-token',
  outsider: 'fo-outsider-sandbox-token',
  scim: 'fo-scim-sandbox-token',
} as const;

type DemoRole = Exclude<keyof typeof DEMO_TOKENS, 'scim'>;

/** The password of a demo account on the sign-in page (alice: alice-sandbox-password); documented in the README. */
export function demoPassword(username: string): string {
  return `${username}-sandbox-password`;
}

interface DemoAccount {
  role: DemoRole;
  username: string;
  name: string;
  email: string;
  /** Access level in group acme (inherited by everything below it). */
  acmeAccess: AccessLevel | null;
  bio: string;
}

export const DEMO_ACCOUNTS: readonly DemoAccount[] = [
  {
    role: 'admin',
    username: 'root',
    name: 'Rosa Root',
    email: 'root@acme.example',
    acmeAccess: 50,
    bio: 'Keeps the lights on.',
  },
  {
    role: 'maintainer',
    username: 'alice',
    name: 'Alice Martin',
    email: 'alice@acme.example',
    acmeAccess: 40,
    bio: 'Tech lead, platform team.',
  },
  {
    role: 'developer',
    username: 'bob',
    name: 'Bob Chen',
    email: 'bob@acme.example',
    acmeAccess: 30,
    bio: 'Frontend and payments.',
  },
  {
    role: 'reporter',
    username: 'carol',
    name: 'Carol Diaz',
    email: 'carol@acme.example',
    acmeAccess: 20,
    bio: 'QA and release notes.',
  },
  {
    role: 'guest',
    username: 'dave',
    name: 'Dave Okafor',
    email: 'dave@acme.example',
    acmeAccess: 10,
    bio: 'Support engineer.',
  },
  {
    role: 'outsider',
    username: 'erin',
    name: 'Erin Walsh',
    email: 'erin@example.org',
    acmeAccess: null,
    bio: 'Contractor, not in acme.',
  },
];
