// Contract: project integrations against the sandbox — the active list, PUT creating and editing with each kind's
// required parameters checked, GET and DELETE, Maintainer-or-Owner only, 404 for a private project or an unknown
// slug, and credentials redacted in every result and in the approval request.
import { describe, expect, it } from 'vitest';
import { validateInput } from '../../src/operations/engine/validate.js';
import { decide } from '../../src/policy/policy.js';
import { integrationStateOf } from '../../src/sandbox/areas/integrations/state.js';
import { WEB, PAYMENTS, expectRefusal } from './builders.js';
import { contractSuite, type Role } from './harness.js';

const suite = contractSuite('integrations');

interface Integration {
  id: number | null;
  title: string;
  slug: string;
  active: boolean;
  push_events: boolean;
  pipeline_events: boolean;
  properties?: Record<string, string | boolean>;
}

function read(
  name: string,
  input: Record<string, unknown>,
  as: Role = 'maintainer',
): Promise<Integration & Integration[]> {
  return suite.data<Integration & Integration[]>(name, input, as);
}

describe.shuffle('integrations, in any order', () => {
  describe('list_integrations and get_integration', () => {
    it('lists only the active integrations, with their event flags', async () => {
      const active = await read('list_integrations', { id: WEB });
      // The two seeded active ones, in this order; the writing tests may add others to acme/web's list.
      const seeded = ['webhook-chat', 'emails-on-push'];
      expect(active.map((i) => i.slug).filter((slug) => seeded.includes(slug))).toEqual(seeded);
      expect(active.map((i) => i.slug)).not.toContain('external-wiki');
      for (const item of active) {
        expect(item).toMatchObject({
          id: expect.any(Number),
          title: expect.any(String),
          active: true,
          created_at: expect.any(String),
          commit_events: true,
          job_events: true,
          comment_on_event_enabled: true,
        });
        expect(item).not.toHaveProperty('properties');
      }
      expect(active.find((i) => i.slug === 'webhook-chat')).toMatchObject({
        pipeline_events: true,
        issues_events: false,
        confidential_issues_events: false,
      });
      // A project with none, which no test gives any.
      expect(await read('list_integrations', { id: 'acme/handbook' })).toEqual([]);
    });

    it("reads one integration's settings with its credentials redacted, and an inactive one as such", async () => {
      const chat = await read('get_integration', { id: WEB, slug: 'webhook-chat' });
      expect(chat).toMatchObject({
        active: true,
        properties: { webhook: '[redacted]', notify_only_broken_pipelines: true },
      });
      const build = await read('get_integration', { id: PAYMENTS, slug: 'build-server' });
      expect(build.properties).toEqual({
        build_server_url: 'https://builds.acme.example',
        build_key: '[redacted]',
        username: 'ci-bot',
        password: '[redacted]',
      });
      // The service did send them: the redaction is forgeops' own.
      expect(suite.requests().at(-1)?.status).toBe(200);
      expect(JSON.stringify(build)).not.toContain('hunter2');
      expect(await read('get_integration', { id: WEB, slug: 'external-wiki' })).toMatchObject({
        active: false,
        id: null,
        properties: {},
      });
    });
  });

  describe('set_integration', () => {
    it("creates an integration with its kind's parameters, then edits it", async () => {
      const created = await read('set_integration', {
        id: WEB,
        slug: 'ci-server',
        settings: {
          token: 'ci-secret-token',
          ci_server_url: 'https://ci.acme.example',
          enable_ssl_verification: true,
          merge_requests_events: false,
        },
      });
      expect(created).toMatchObject({
        slug: 'ci-server',
        active: true,
        merge_requests_events: false,
        push_events: true,
        properties: { token: '[redacted]', ci_server_url: 'https://ci.acme.example', enable_ssl_verification: true },
      });
      expect((await read('list_integrations', { id: WEB })).map((i) => i.slug)).toContain('ci-server');
      const edited = await read('set_integration', {
        id: WEB,
        slug: 'ci-server',
        settings: { token: 'rotated-token', ci_server_url: 'https://ci2.acme.example', push_events: false },
      });
      expect(edited).toMatchObject({
        id: created.id,
        push_events: false,
        merge_requests_events: false,
        properties: { ci_server_url: 'https://ci2.acme.example' },
      });
      // What the service stored is the new token; nothing forgeops returned showed either.
      expect(
        integrationStateOf(suite.sandbox.store).active.get(`${suite.sandbox.store.findProject(WEB)!.id}:ci-server`)!
          .properties.token,
      ).toBe('rotated-token');
      expect(JSON.stringify([created, edited])).not.toMatch(/ci-secret-token|rotated-token/);
    });

    // One case per kind of the spec: its required parameters, each of which is refused when missing.
    const KINDS: Array<[slug: string, settings: Record<string, string | boolean>]> = [
      ['task-tracker', { api_key: 'k', restrict_to_branch: 'main', push_events: true }],
      ['project-manager', { token: 't', subdomain: 'acme' }],
      ['build-server', { build_server_url: 'https://b.example', build_key: 'K', username: 'u', password: 'p' }],
      [
        'custom-issue-tracker',
        {
          new_issue_url: 'https://t.example/new',
          issues_url: 'https://t.example/:id',
          project_url: 'https://t.example',
          title: 'Tracker',
        },
      ],
      ['hosted-ci', { token: 't', project_url: 'https://ci.example/acme' }],
      ['chat-room', { token: 't', room: 'dev' }],
      [
        'webhook-chat',
        { webhook: 'https://chat.example/hook', branches_to_be_notified: 'protected', wiki_page_events: false },
      ],
      ['ci-server', { token: 't', ci_server_url: 'https://ci.example' }],
      ['emails-on-push', { recipients: 'a@acme.example b@acme.example', disable_diffs: true }],
      ['external-wiki', { external_wiki_url: 'https://wiki.example' }],
      ['team-inbox', { token: 't' }],
      ['status-check', { token: 't', repository_url: 'https://code.example/acme/web', static_context: true }],
      ['room-chat', { token: 't', color: 'yellow', notify: true }],
    ];
    const REQUIRED: Record<string, string[]> = {
      'task-tracker': ['api_key'],
      'project-manager': ['token'],
      'build-server': ['build_server_url', 'build_key', 'username', 'password'],
      'custom-issue-tracker': ['new_issue_url', 'issues_url', 'project_url'],
      'hosted-ci': ['token', 'project_url'],
      'chat-room': ['token'],
      'webhook-chat': ['webhook'],
      'ci-server': ['token', 'ci_server_url'],
      'emails-on-push': ['recipients'],
      'external-wiki': ['external_wiki_url'],
      'team-inbox': ['token'],
      'status-check': ['token', 'repository_url'],
      'room-chat': ['token'],
    };
    it.each(KINDS)(
      '%s: accepted with its required parameters, refused without each of them',
      async (slug, settings) => {
        for (const name of REQUIRED[slug]) {
          const { [name]: _left, ...without } = settings;
          const error = await suite.refusal('set_integration', { id: 'acme/platform/infra', slug, settings: without });
          expect([error.status, error.serviceMessage]).toEqual([400, `${name} is missing`]);
        }
        expect((await read('list_integrations', { id: 'acme/platform/infra' })).some((i) => i.slug === slug)).toBe(
          false,
        );
        const answer = await read('set_integration', { id: 'acme/platform/infra', slug, settings });
        expect(answer).toMatchObject({ slug, active: true });
      },
    );

    it('refuses a value of the wrong kind', async () => {
      const error = await suite.refusal('set_integration', {
        id: WEB,
        slug: 'webhook-chat',
        settings: { webhook: 'https://x.example', branches_to_be_notified: 'everything' },
      });
      expect([error.status, error.serviceMessage]).toEqual([
        400,
        'branches_to_be_notified does not have a valid value',
      ]);
    });

    it('asks a human with the target named and the credentials never shown', () => {
      const op = suite.operation('set_integration');
      const decision = decide(
        op,
        validateInput(op, {
          id: WEB,
          slug: 'webhook-chat',
          settings: { webhook: 'https://chat.example/hooks/SECRET', push_events: true },
        }) as Record<string, unknown>,
        { readOnly: false },
      );
      expect(decision.kind).toBe('approve');
      const prompt = decision.kind === 'approve' ? decision.prompt : '';
      expect(prompt).toContain('"webhook-chat"');
      expect(prompt).toContain('project: "acme/web"');
      // Where the events go is shown (the origin); the path, which is the secret, is not.
      expect(prompt).toContain(
        'settings: {webhook: <secret URL on "https://chat.example", 33 characters>, push_events: true}',
      );
      expect(prompt).not.toContain('SECRET');
    });
  });

  describe('delete_integration', () => {
    it('removes an integration and its settings', async () => {
      await read('set_integration', { id: WEB, slug: 'team-inbox', settings: { token: 'inbox-token' } });
      const deleted = await suite.call('delete_integration', { id: WEB, slug: 'team-inbox' });
      expect([deleted.status, deleted.data]).toEqual([204, null]);
      expect((await read('list_integrations', { id: WEB })).some((i) => i.slug === 'team-inbox')).toBe(false);
      expect(await read('get_integration', { id: WEB, slug: 'team-inbox' })).toMatchObject({
        active: false,
        properties: {},
      });
    });
  });

  describe('refusals', () => {
    it.each([['developer'], ['reporter'], ['guest']] as const)(
      'refuses a %s (Maintainer or Owner only)',
      async (role) => {
        for (const [name, input] of [
          ['list_integrations', { id: WEB }],
          ['get_integration', { id: WEB, slug: 'emails-on-push' }],
          ['set_integration', { id: WEB, slug: 'external-wiki', settings: { external_wiki_url: 'https://w.example' } }],
          ['delete_integration', { id: WEB, slug: 'emails-on-push' }],
        ] as const) {
          const error = await suite.refusal(name, input, role);
          expect([error.status, error.message], name).toEqual([403, '403 Forbidden']);
        }
        expect((await read('list_integrations', { id: WEB })).map((i) => i.slug)).toContain('emails-on-push');
      },
    );

    it('needs a token, hides a private project from a non-member, and knows no other slug', async () => {
      expect((await suite.refusal('list_integrations', { id: WEB }, 'anonymous')).status).toBe(401);
      await expectRefusal(suite, 'get_integration', { id: PAYMENTS, slug: 'build-server' }, 'outsider', [
        404,
        '404 Project Not Found',
      ]);
      const unknown = await suite.refusal('get_integration', { id: WEB, slug: 'no-such-thing' });
      expect([unknown.status, unknown.message]).toEqual([404, '404 Service Not Found']);
    });
  });

  describe('presentation', () => {
    it('shows slug, title and events on in a list, and the redacted settings of one', async () => {
      const result = await suite.call('list_integrations', { id: PAYMENTS });
      expect(suite.operation('list_integrations').present!(result.data, { id: PAYMENTS })).toEqual({
        title: '1 integration',
        fields: [
          [
            'build-server',
            'Build server · commit, push, issues, merge_requests, tag_push, note, pipeline, wiki_page, job',
          ],
        ],
      });
      const one = await suite.call('get_integration', { id: PAYMENTS, slug: 'build-server' });
      const shown = suite.operation('get_integration').present!(one.data, { id: PAYMENTS, slug: 'build-server' });
      expect(shown.title).toBe('Build server (build-server): active');
      expect(shown.fields).toContainEqual(['password', '[redacted]']);
    });
  });

  suite.badInputCases([
    [
      'settings that are not an object',
      'set_integration',
      { id: WEB, slug: 'team-inbox', settings: 'token=x' },
      'settings',
    ],
    ['a set without settings', 'set_integration', { id: WEB, slug: 'team-inbox' }, 'settings'],
  ]);
});

suite.coverageCase();
