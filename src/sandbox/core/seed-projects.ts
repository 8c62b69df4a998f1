// The core's demo projects as data: each one's groups, settings and real git history (branches, merges, tags), its
// pipelines in every status, milestones and releases; ./seed.ts writes them into a store. Each area adds its own
// (issues, merge requests, epics, keys, …) in its seed.
//
// Groups and projects:
//   acme (public) ─ acme/web (public), acme/handbook (public, archived)
//   └ acme/platform (private) ─ acme/platform/payments-api (private), acme/platform/infra (internal)
//   bob/scratchpad (bob's private personal project)
//
// acme/web's main holds a real merge: feature/search was merged with a merge commit, and its commits are dated
// between main's own, so that first_parent and order=topo give other answers than the default history walk.
// acme/handbook has issues disabled (archived: questions go to the wiki) and bob/scratchpad merge requests
// disabled (bob pushes straight to main), so that each feature filter of the project list changes its answer.
import type { PipelineStatus, PipelineVariable, Visibility } from './store.js';

/** File contents of a seed commit: text, bytes, or null to delete the file. */
export type SeedFiles = Record<string, string | Buffer | null>;

interface SeedCommit {
  author: string;
  /** Days before today (fractions give the hour). */
  daysAgo: number;
  message: string;
  /** Default: the project's default branch. */
  branch?: string;
  /** Where a new branch starts (a branch name). */
  from?: string;
  files: SeedFiles;
  /** Annotated tag to put on this commit. */
  tag?: string;
  /**
   * A branch merged by this commit: its tip becomes the second parent, and the files it changed since it
   * started are written over this branch's (seed merges never conflict: the two sides touch different files).
   */
  merge?: string;
}

interface SeedPipeline {
  ref: string;
  /** Index in the project's commits of the commit the pipeline ran for. */
  commit: number;
  status: PipelineStatus;
  by: string;
  /** Created this many minutes ago; default a few minutes after the commit. */
  minutesAgo?: number;
  /** Seconds from start to finish for finished pipelines. */
  duration?: number;
  coverage?: string;
  variables?: PipelineVariable[];
  yamlErrors?: string;
  name?: string;
}

interface SeedRelease {
  tag: string;
  name: string;
  description: string;
  by: string;
  milestones: string[];
  links: Array<{ name: string; url: string }>;
}

interface SeedMilestone {
  title: string;
  description: string;
  state: 'active' | 'closed';
  /** Start and due dates, in days from today (negative: past). */
  start: number;
  due: number;
}

export interface SeedProject {
  namespace: string;
  name: string;
  path: string;
  description: string;
  visibility: Visibility;
  archived?: boolean;
  /** Both default to true. */
  issuesEnabled?: boolean;
  mergeRequestsEnabled?: boolean;
  creator: string;
  topics: string[];
  languages: Record<string, number>;
  starredBy?: string[];
  customAttributes?: Record<string, string>;
  commits: SeedCommit[];
  /** Branches that start at a seeded commit (its index) and have no commits of their own yet. */
  branchesAt?: Record<string, number>;
  milestones: SeedMilestone[];
  releases: SeedRelease[];
  pipelines: SeedPipeline[];
}

// A 1×1 PNG: the binary file every demo repository carries.
const PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

const ciConfig = (testCommand: string) => `stages: [test, build, deploy]

test:
  stage: test
  script:
    - ${testCommand}

build:
  stage: build
  script:
    - make build

deploy:
  stage: deploy
  script:
    - ./scripts/deploy.sh
  only: [main]
`;

export const PROJECTS: SeedProject[] = [
  {
    namespace: 'acme',
    name: 'Web',
    path: 'web',
    description: 'The acme.example storefront: TypeScript, server-rendered, deployed on every merge to main.',
    visibility: 'public',
    creator: 'alice',
    topics: ['frontend', 'typescript'],
    languages: { TypeScript: 81.4, CSS: 12.9, Shell: 5.7 },
    starredBy: ['alice', 'bob', 'erin'],
    customAttributes: { team: 'storefront', tier: 'critical' },
    commits: [
      {
        author: 'alice',
        daysAgo: 21.6,
        message: 'Initial commit',
        files: {
          'README.md': '# acme/web\n\nThe acme.example storefront.\n\n## Develop\n\n    npm install\n    npm run dev\n',
          'package.json': '{\n  "name": "@acme/web",\n  "version": "0.1.0",\n  "private": true\n}\n',
          '.gitignore': 'node_modules/\ndist/\n',
          '.ci.yml': ciConfig('npm test'),
        },
      },
      {
        author: 'bob',
        daysAgo: 19.4,
        message: 'Add landing page and button component',
        files: {
          'src/index.ts':
            "import { renderHome } from './pages/home.js';\n\nexport const app = { routes: { '/': renderHome } };\n",
          'src/pages/home.ts':
            "import { button } from '../components/button.js';\n\nexport function renderHome(): string {\n  return `<main><h1>acme</h1>${button('Shop now')}</main>`;\n}\n",
          'src/components/button.ts':
            'export function button(label: string): string {\n  return `<button class="btn">${label}</button>`;\n}\n',
        },
      },
      {
        author: 'carol',
        daysAgo: 16.5,
        message: 'Add logo and base styles',
        files: {
          'public/logo.png': PIXEL_PNG,
          'src/styles/main.css':
            'body { font-family: system-ui, sans-serif; margin: 0; }\n.btn { padding: 0.5rem 1rem; }\n',
        },
      },
      {
        author: 'alice',
        daysAgo: 14.7,
        message: 'Release 1.0.0\n\nFirst public version of the storefront.',
        tag: 'v1.0.0',
        files: {
          'CHANGELOG.md': '# Changelog\n\n## 1.0.0\n\n- Landing page\n- Logo and base styles\n',
          'package.json': '{\n  "name": "@acme/web",\n  "version": "1.0.0",\n  "private": true\n}\n',
        },
      },
      {
        author: 'carol',
        daysAgo: 12.8,
        message: 'Add product search',
        branch: 'feature/search',
        from: 'main',
        files: {
          'src/search/query.ts':
            'export function matches(query: string, title: string): boolean {\n  return title.toLowerCase().includes(query.trim().toLowerCase());\n}\n',
        },
      },
      {
        author: 'bob',
        daysAgo: 11.3,
        message: 'Fix header alignment on small screens',
        files: {
          'src/components/header.ts':
            'export function header(title: string): string {\n  return `<header class="header">${title}</header>`;\n}\n',
          'src/styles/main.css':
            'body { font-family: system-ui, sans-serif; margin: 0; }\n.btn { padding: 0.5rem 1rem; }\n@media (max-width: 600px) { .header { text-align: center; } }\n',
        },
      },
      {
        author: 'carol',
        daysAgo: 10.1,
        message: 'Add the search results page',
        branch: 'feature/search',
        files: {
          'src/pages/search.ts':
            "import { matches } from '../search/query.js';\n\nexport function renderSearch(query: string, titles: string[]): string {\n  return `<ul>${titles.filter((t) => matches(query, t)).map((t) => `<li>${t}</li>`).join('')}</ul>`;\n}\n",
          'src/index.ts':
            "import { renderHome } from './pages/home.js';\nimport { renderSearch } from './pages/search.js';\n\nexport const app = { routes: { '/': renderHome, '/search': renderSearch } };\n",
        },
      },
      {
        author: 'bob',
        daysAgo: 9.2,
        message: 'Add date formatting helper and getting started guide',
        files: {
          'src/utils/format date.ts':
            'export function formatDate(date: Date): string {\n  return date.toISOString().slice(0, 10);\n}\n',
          'docs/getting started.md':
            '# Getting started\n\n1. Clone the repository.\n2. Run `npm install`.\n3. Open http://localhost:3000.\n',
        },
      },
      {
        author: 'alice',
        daysAgo: 7.9,
        message: "Merge branch 'feature/search' into 'main'\n\nProduct search and a results page.",
        merge: 'feature/search',
        files: {},
      },
      {
        author: 'alice',
        daysAgo: 6.6,
        message: 'Release 1.1.0',
        tag: 'v1.1.0',
        files: {
          'CHANGELOG.md':
            '# Changelog\n\n## 1.1.0\n\n- Product search\n- Header fix on small screens\n- Date helper\n\n## 1.0.0\n\n- Landing page\n- Logo and base styles\n',
          'package.json': '{\n  "name": "@acme/web",\n  "version": "1.1.0",\n  "private": true\n}\n',
        },
      },
      {
        author: 'carol',
        daysAgo: 3.4,
        message: 'Document the deploy steps [ci skip]',
        files: {
          'README.md':
            '# acme/web\n\nThe acme.example storefront.\n\n## Develop\n\n    npm install\n    npm run dev\n\n## Deploy\n\nEvery merge to main deploys to production after the pipeline passes.\n',
        },
      },
      {
        author: 'bob',
        daysAgo: 2.3,
        message: 'Add dark mode toggle',
        branch: 'feature/dark-mode',
        from: 'main',
        files: { 'src/theme/dark.ts': "export const dark = { background: '#111', foreground: '#eee' };\n" },
      },
      {
        author: 'bob',
        daysAgo: 1.2,
        message: 'Wire dark mode into the header',
        branch: 'feature/dark-mode',
        files: {
          'src/components/header.ts':
            'import { dark } from \'../theme/dark.js\';\n\nexport function header(title: string, theme = dark): string {\n  return `<header class="header" style="background:${theme.background}">${title}</header>`;\n}\n',
        },
      },
      // main goes red: bob's time-zone change breaks the date test, and alice's commit on top of it stays red.
      {
        author: 'bob',
        daysAgo: 0.45,
        message:
          "Show order dates in the store's time zone\n\nOrders placed after midnight UTC showed the previous day in Berlin.",
        files: {
          'src/utils/format date.ts':
            "export function formatDate(date: Date, timeZone = 'UTC'): string {\n  // Shift to the runner's local time first, then format in the store's zone.\n  const local = new Date(date.getTime() + date.getTimezoneOffset() * 60_000);\n  return local.toLocaleDateString('en-CA', { timeZone });\n}\n",
          'src/utils/date.test.ts':
            "import { formatDate } from './format date.js';\n\ndescribe('formatDate', () => {\n  it(\"renders the order date in the store's time zone\", () => {\n    const placed = new Date('2024-03-10T00:30:00Z');\n    expect(formatDate(placed, 'Europe/Berlin')).toBe('2024-03-10');\n  });\n});\n",
        },
      },
      {
        author: 'alice',
        daysAgo: 0.15,
        message: 'Show 50 search results per page',
        files: {
          'src/pages/search.ts':
            "import { matches } from '../search/query.js';\n\nconst PAGE_SIZE = 50;\n\nexport function renderSearch(query: string, titles: string[]): string {\n  return `<ul>${titles.filter((t) => matches(query, t)).slice(0, PAGE_SIZE).map((t) => `<li>${t}</li>`).join('')}</ul>`;\n}\n",
        },
      },
    ],
    // A fix branch just started from the 1.1.0 release, no commits yet.
    branchesAt: { 'fix/checkout-total': 9 },
    milestones: [
      { title: '1.0', description: 'First public release', state: 'closed', start: -30, due: -14 },
      { title: '1.1', description: 'Polish after launch', state: 'closed', start: -14, due: -6 },
      { title: '1.2', description: 'Dark mode and accessibility', state: 'active', start: -6, due: 14 },
    ],
    releases: [
      {
        tag: 'v1.0.0',
        name: 'Web 1.0.0',
        by: 'alice',
        milestones: ['1.0'],
        description: '## Highlights\n\n- Landing page\n- Logo and base styles',
        links: [{ name: 'Static bundle', url: 'https://downloads.acme.example/web/v1.0.0/web-static.tar.gz' }],
      },
      {
        tag: 'v1.1.0',
        name: 'Web 1.1.0',
        by: 'alice',
        milestones: ['1.1'],
        description: '## Fixes\n\n- Header alignment on small screens\n\n## New\n\n- Product search\n- Date helper',
        links: [
          { name: 'Static bundle', url: 'https://downloads.acme.example/web/v1.1.0/web-static.tar.gz' },
          { name: 'Runbook', url: 'https://docs.acme.example/runbooks/web' },
        ],
      },
    ],
    // The incident: main was last green at the 1.1.0 release (#3), went red at bob's commit (#8) and is red at its
    // head (#9). Their deploys need only the build: both reached staging, and bob played #8's to production (the
    // jobs area seeds it). Meanwhile alice's redeploy of the 1.1.0 release (#10) is testing; nobody played its deploy.
    pipelines: [
      { ref: 'v1.0.0', commit: 3, status: 'success', by: 'alice', duration: 312, coverage: '81.20' },
      { ref: 'main', commit: 5, status: 'failed', by: 'bob', duration: 95, name: 'Merge train' },
      { ref: 'main', commit: 9, status: 'success', by: 'alice', duration: 287, coverage: '84.75' },
      { ref: 'v1.1.0', commit: 9, status: 'success', by: 'alice', duration: 298, coverage: '84.75' },
      { ref: 'main', commit: 10, status: 'skipped', by: 'carol' },
      { ref: 'feature/dark-mode', commit: 11, status: 'canceled', by: 'bob', duration: 41 },
      {
        ref: 'feature/dark-mode',
        commit: 12,
        status: 'failed',
        by: 'bob',
        duration: 3,
        yamlErrors: 'jobs:test config contains unknown keys: scirpt',
      },
      { ref: 'main', commit: 13, status: 'failed', by: 'bob', duration: 102 },
      { ref: 'main', commit: 14, status: 'failed', by: 'alice', duration: 98, name: 'Merge train' },
      {
        ref: 'v1.1.0',
        commit: 9,
        status: 'running',
        by: 'alice',
        minutesAgo: 4,
        name: 'Deploy to production',
        variables: [{ key: 'DEPLOY_ENV', variable_type: 'env_var', value: 'production' }],
      },
      {
        ref: 'feature/dark-mode',
        commit: 12,
        status: 'pending',
        by: 'bob',
        minutesAgo: 1,
        variables: [
          { key: 'RUN_E2E', variable_type: 'env_var', value: 'true' },
          { key: 'E2E_CONFIG', variable_type: 'file', value: 'browsers: [chromium, firefox]\n' },
        ],
      },
    ],
  },
  {
    namespace: 'acme/platform',
    name: 'Payments API',
    path: 'payments-api',
    description: 'Charges, refunds and payouts. Owned by the platform team; PCI scope.',
    visibility: 'private',
    creator: 'alice',
    topics: ['go', 'payments', 'pci'],
    languages: { Go: 92.3, Makefile: 7.7 },
    starredBy: ['alice'],
    customAttributes: { team: 'payments', tier: 'critical' },
    commits: [
      {
        author: 'alice',
        daysAgo: 30.5,
        message: 'Initial commit',
        files: {
          'README.md': '# payments-api\n\nCharges, refunds and payouts for acme.\n\nOn call: #payments-oncall.\n',
          'go.mod': 'module acme.example/payments-api\n\ngo 1.22\n',
          '.ci.yml': ciConfig('go test ./...'),
          Makefile: 'build:\n\tgo build ./cmd/server\n',
        },
      },
      {
        author: 'bob',
        daysAgo: 27.4,
        message: 'Add charge endpoint',
        files: {
          'cmd/server/main.go':
            'package main\n\nimport "acme.example/payments-api/internal/payments"\n\nfunc main() { payments.Serve(":8080") }\n',
          'internal/payments/charge.go':
            'package payments\n\n// Charge debits a card once; the idempotency key makes retries safe.\nfunc Charge(key string, cents int64) error { return nil }\n',
        },
      },
      {
        author: 'alice',
        daysAgo: 24.3,
        message: 'Document the API',
        files: {
          'docs/api reference.md':
            '# API reference\n\n## POST /charges\n\nCreates a charge. Send an `Idempotency-Key` header.\n',
          'assets/diagram.png': PIXEL_PNG,
        },
      },
      {
        author: 'alice',
        daysAgo: 20.6,
        message: 'Release 1.0.0',
        tag: 'v1.0.0',
        files: { 'CHANGELOG.md': '# Changelog\n\n## 1.0.0\n\n- Charges\n' },
      },
      {
        author: 'bob',
        daysAgo: 12.4,
        message: 'Add refunds',
        files: {
          'internal/payments/refund.go':
            'package payments\n\n// Refund returns money for a charge, at most its amount.\nfunc Refund(chargeID string, cents int64) error { return nil }\n',
        },
      },
      {
        author: 'carol',
        daysAgo: 10.2,
        message: 'Add refund test cases',
        files: {
          'internal/payments/refund_test.go':
            'package payments\n\nimport "testing"\n\nfunc TestRefund(t *testing.T) {\n\tif err := Refund("ch_1", 100); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n',
        },
      },
      {
        author: 'alice',
        daysAgo: 8.5,
        message: 'Release 1.1.0',
        tag: 'v1.1.0',
        files: { 'CHANGELOG.md': '# Changelog\n\n## 1.1.0\n\n- Refunds\n\n## 1.0.0\n\n- Charges\n' },
      },
      {
        author: 'bob',
        daysAgo: 1.5,
        message: 'Send refund webhooks',
        branch: 'feature/refund-webhooks',
        from: 'main',
        files: {
          'internal/webhooks/refund.go':
            'package webhooks\n\n// RefundSucceeded notifies the merchant; delivery is retried with backoff.\nfunc RefundSucceeded(chargeID string) {}\n',
        },
      },
    ],
    milestones: [
      { title: '1.0', description: 'Charges in production', state: 'closed', start: -35, due: -20 },
      { title: '1.1', description: 'Refunds', state: 'closed', start: -20, due: -8 },
      { title: '1.2', description: 'Webhooks', state: 'active', start: -8, due: 21 },
    ],
    releases: [
      {
        tag: 'v1.0.0',
        name: 'Payments API 1.0.0',
        by: 'alice',
        milestones: ['1.0'],
        description: 'Charges are live.',
        links: [{ name: 'Container image', url: 'https://registry.acme.example/platform/payments-api:1.0.0' }],
      },
      {
        tag: 'v1.1.0',
        name: 'Payments API 1.1.0',
        by: 'alice',
        milestones: ['1.1'],
        description: 'Refunds are live. See the runbook before enabling them for a merchant.',
        links: [
          { name: 'Container image', url: 'https://registry.acme.example/platform/payments-api:1.1.0' },
          { name: 'Refund runbook', url: 'https://docs.acme.example/runbooks/refunds' },
        ],
      },
    ],
    pipelines: [
      { ref: 'v1.0.0', commit: 3, status: 'success', by: 'alice', duration: 421, coverage: '74.00' },
      { ref: 'v1.1.0', commit: 6, status: 'success', by: 'alice', duration: 455, coverage: '77.30' },
      {
        ref: 'main',
        commit: 6,
        status: 'failed',
        by: 'bob',
        minutesAgo: 90,
        duration: 212,
        name: 'Nightly integration',
      },
      { ref: 'main', commit: 6, status: 'canceled', by: 'alice', minutesAgo: 60, duration: 30 },
      { ref: 'feature/refund-webhooks', commit: 7, status: 'skipped', by: 'bob', minutesAgo: 35 },
      {
        ref: 'feature/refund-webhooks',
        commit: 7,
        status: 'running',
        by: 'bob',
        minutesAgo: 7,
        variables: [{ key: 'WEBHOOK_SANDBOX', variable_type: 'env_var', value: 'enabled' }],
      },
      { ref: 'main', commit: 6, status: 'pending', by: 'alice', minutesAgo: 2 },
    ],
  },
  {
    namespace: 'acme/platform',
    name: 'Infra',
    path: 'infra',
    description: 'Terraform for the shared platform: networks, clusters, DNS.',
    visibility: 'internal',
    creator: 'alice',
    topics: ['terraform'],
    languages: { HCL: 100 },
    commits: [
      {
        author: 'alice',
        daysAgo: 40.2,
        message: 'Initial commit',
        files: {
          'README.md': '# infra\n\nApply with `terraform apply` from `envs/<name>`.\n',
          '.ci.yml': ciConfig('terraform validate'),
          'envs/prod/main.tf': 'module "network" {\n  source = "../../modules/network"\n  cidr   = "10.0.0.0/16"\n}\n',
          'modules/network/main.tf': 'variable "cidr" { type = string }\n',
        },
      },
      {
        author: 'bob',
        daysAgo: 5.3,
        message: 'Add staging environment',
        tag: 'v1.0.0',
        files: {
          'envs/staging/main.tf':
            'module "network" {\n  source = "../../modules/network"\n  cidr   = "10.1.0.0/16"\n}\n',
        },
      },
      {
        author: 'alice',
        daysAgo: 2.2,
        message: 'Raise staging node count',
        branch: 'feature/bigger-staging',
        from: 'main',
        files: { 'envs/staging/nodes.tf': 'locals { node_count = 5 }\n' },
      },
    ],
    milestones: [],
    releases: [],
    pipelines: [
      { ref: 'main', commit: 1, status: 'success', by: 'alice', duration: 64 },
      { ref: 'feature/bigger-staging', commit: 2, status: 'pending', by: 'alice', minutesAgo: 15 },
    ],
  },
  {
    namespace: 'acme',
    name: 'Handbook',
    path: 'handbook',
    description: 'The old engineering handbook (archived; see the wiki).',
    visibility: 'public',
    archived: true,
    issuesEnabled: false,
    creator: 'root',
    topics: ['docs'],
    languages: { Markdown: 100 },
    commits: [
      {
        author: 'root',
        daysAgo: 120.4,
        message: 'Initial commit',
        files: {
          'README.md': '# Engineering handbook\n\nArchived. Moved to the wiki.\n',
          'on call/escalation.md': '# Escalation\n\nPage the on-call first.\n',
        },
      },
      {
        author: 'carol',
        daysAgo: 90.1,
        message: 'Add release checklist',
        files: { 'releases/checklist.md': '- [ ] Changelog\n- [ ] Tag\n' },
      },
    ],
    milestones: [],
    releases: [],
    pipelines: [],
  },
  {
    namespace: 'bob',
    name: 'Scratchpad',
    path: 'scratchpad',
    description: "Bob's experiments.",
    visibility: 'private',
    mergeRequestsEnabled: false,
    creator: 'bob',
    topics: [],
    languages: { TypeScript: 100 },
    commits: [
      {
        author: 'bob',
        daysAgo: 4.5,
        message: 'Try out the new date API',
        files: { 'notes.md': '# Notes\n', 'src/try dates.ts': 'console.log(new Date());\n' },
      },
    ],
    milestones: [],
    releases: [],
    pipelines: [{ ref: 'main', commit: 0, status: 'success', by: 'bob', duration: 12 }],
  },
];
