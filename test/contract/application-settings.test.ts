// Contract: application settings against the sandbox — the whole object on GET, PUT changing only what it names
// and answering the whole object, the spec's "requires" rules and value ranges refused with nothing saved,
// administrators only, credentials redacted in results and shown by length in the approval request.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiError } from '../../src/http/errors.js';
import { validateInput } from '../../src/operations/engine/validate.js';
import { decide } from '../../src/policy/policy.js';
import { applicationSettingsOf } from '../../src/sandbox/areas/application-settings/state.js';
import { auditEventsOf } from '../../src/sandbox/core/audit.js';
import { api } from '../unit/sandbox/sandbox-client.js';
import { contractSuite, type Role } from './harness.js';

const suite = contractSuite('application_settings');

type Settings = Record<string, unknown>;

function read(name: string, input: Record<string, unknown>, as: Role = 'admin'): Promise<Settings> {
  return suite.data<Settings>(name, input, as);
}

function refusal(settings: Settings, as: Role = 'admin'): Promise<ApiError> {
  return suite.refusal('update_application_settings', { settings }, as);
}

const stored = () => applicationSettingsOf(suite.sandbox.store);

// The settings are one object for the whole instance, nothing a test can make afresh: each test gets them as seeded
// and leaves them so, whatever it changed.
let seeded: Record<string, unknown> = {};
beforeEach(() => {
  seeded = structuredClone(stored()) as Record<string, unknown>;
});
afterEach(() => {
  const settings = stored() as Record<string, unknown>;
  for (const key of Object.keys(settings)) delete settings[key];
  Object.assign(settings, seeded);
});

describe.shuffle('application-settings, in any order', () => {
  describe('get_application_settings', () => {
    it("gives every setting as one object, with the spec's defaults", async () => {
      const settings = await read('get_application_settings', {});
      expect(settings).toMatchObject({
        id: 1,
        default_projects_limit: 100000,
        default_branch_protection: 2,
        default_project_visibility: 'private',
        first_day_of_week: 0,
        dsa_key_restriction: 0,
        domain_whitelist: null,
        spamfilter_enabled: false,
        enforce_terms: false,
      });
      for (const field of [
        'created_at',
        'updated_at',
        'signup_enabled',
        'restricted_visibility_levels',
        'repository_storages',
        'geo_node_allowed_ips',
        'deletion_adjourned_period',
      ]) {
        expect(settings, field).toHaveProperty(field);
      }
    });

    it('is for administrators only', async () => {
      const anonymous = await suite
        .call('get_application_settings', {}, { as: 'anonymous' })
        .catch((e: unknown) => e as ApiError);
      expect((anonymous as ApiError).status).toBe(401);
      const maintainer = await suite
        .call('get_application_settings', {}, { as: 'maintainer' })
        .catch((e: unknown) => e as ApiError);
      expect((maintainer as ApiError).status).toBe(403);
    });
  });

  describe('update_application_settings', () => {
    it('changes only the settings it names and answers the whole object', async () => {
      const before = await read('get_application_settings', {});
      const after = await read('update_application_settings', {
        settings: {
          signup_enabled: false,
          default_branch_protection: 1,
          first_day_of_week: 1,
          domain_whitelist: ['acme.example'],
        },
      });
      expect(after).toMatchObject({
        signup_enabled: false,
        default_branch_protection: 1,
        first_day_of_week: 1,
        domain_whitelist: ['acme.example'],
      });
      expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
      expect(after.default_projects_limit).toBe(before.default_projects_limit);
      expect(await read('get_application_settings', {})).toEqual(after);
    });

    it('enables the spam filter only with its key, and redacts the key in every answer', async () => {
      const missing = await refusal({ spamfilter_enabled: true });
      expect([missing.status, missing.fieldErrors]).toEqual([400, { spamfilter_api_key: ["can't be blank"] }]);
      expect(stored().spamfilter_enabled).toBe(false);
      const on = await read('update_application_settings', {
        settings: { spamfilter_enabled: true, spamfilter_api_key: 'sf-key-123' },
      });
      expect(on).toMatchObject({ spamfilter_enabled: true, spamfilter_api_key: '[redacted]' });
      expect(stored().spamfilter_api_key).toBe('sf-key-123');
      expect((await read('get_application_settings', {})).spamfilter_api_key).toBe('[redacted]');
      // Clearing the key of an enabled filter is refused too: the rule holds for the settings as saved.
      expect((await refusal({ spamfilter_api_key: '' })).fieldErrors).toEqual({
        spamfilter_api_key: ["can't be blank"],
      });
    });

    it.each([
      ['asset_proxy_enabled', { asset_proxy_enabled: true }, ['asset_proxy_url']],
      ['domain_blacklist_enabled', { domain_blacklist_enabled: true }, ['domain_blacklist']],
      ['enforce_terms', { enforce_terms: true }, ['terms']],
      [
        'external_authorization_service_enabled',
        { external_authorization_service_enabled: true },
        ['external_authorization_service_default_label', 'external_authorization_service_url'],
      ],
      [
        'external_auth_client_cert',
        { external_auth_client_cert: '-----BEGIN CERTIFICATE-----' },
        ['external_auth_client_key'],
      ],
    ] as const)('refuses %s without its companions, saving nothing', async (_name, settings, companions) => {
      const before = { ...stored() };
      const error = await refusal(settings);
      expect([error.status, Object.keys(error.fieldErrors ?? {}).sort()]).toEqual([400, [...companions].sort()]);
      expect(stored()).toEqual(before);
    });

    it('accepts each rule with its companions', async () => {
      const on = await read('update_application_settings', {
        settings: {
          enforce_terms: true,
          terms: 'Be kind.',
          domain_blacklist_enabled: true,
          domain_blacklist: ['*.spam.example'],
          external_authorization_service_enabled: true,
          external_authorization_service_default_label: 'internal',
          external_authorization_service_url: 'https://authz.acme.example',
          external_authorization_service_timeout: 2.5,
          asset_proxy_enabled: true,
          asset_proxy_url: 'https://proxy.acme.example',
          asset_proxy_secret_key: 'proxy-secret',
        },
      });
      expect(on).toMatchObject({
        enforce_terms: true,
        terms: 'Be kind.',
        external_authorization_service_timeout: 2.5,
        asset_proxy_secret_key: '[redacted]',
      });
      const keys = await read('update_application_settings', {
        settings: {
          external_auth_client_cert: '-----BEGIN CERTIFICATE-----',
          external_auth_client_key: 'client-key',
          external_auth_client_key_pass: 'pass',
          searchindex_aws_access_key: 'AKIA1',
          cloudk8s_access_key_id: 'AKIA2',
        },
      });
      expect(keys).toMatchObject({
        external_auth_client_cert: '-----BEGIN CERTIFICATE-----',
        external_auth_client_key: '[redacted]',
        external_auth_client_key_pass: '[redacted]',
        searchindex_aws_access_key: '[redacted]',
        cloudk8s_access_key_id: '[redacted]',
      });
    });

    it.each([
      ['default_branch_protection', 3],
      ['default_project_creation', -1],
      ['first_day_of_week', 2],
      ['dsa_key_restriction', -2],
      ['default_projects_limit', -1],
      ['default_project_visibility', 'secret'],
      ['enabled_git_access_protocol', 'ftp'],
    ] as const)('refuses %s = %s, out of range', async (name, value) => {
      const before = stored()[name];
      const error = await refusal({ [name]: value });
      expect([error.status, error.serviceMessage]).toEqual([400, `${name} does not have a valid value`]);
      expect(stored()[name]).toEqual(before);
    });

    it('refuses an external authorization timeout outside 0.001 to 10 seconds over HTTP too (the operation refuses it first)', async () => {
      for (const value of [0, 10.5]) {
        const before = stored().external_authorization_service_timeout;
        const answer = await api(suite.sandbox, 'PUT', '/application/settings', {
          as: 'admin',
          json: { external_authorization_service_timeout: value },
        });
        expect([answer.status, answer.data]).toEqual([
          400,
          { error: 'external_authorization_service_timeout does not have a valid value' },
        ]);
        expect(stored().external_authorization_service_timeout).toEqual(before);
      }
      expect(
        (await read('update_application_settings', { settings: { external_authorization_service_timeout: 10 } }))
          .external_authorization_service_timeout,
      ).toBe(10);
    });

    it('reads archive_builds_in_human_readable as a duration of at least a day; empty means never', async () => {
      expect((await refusal({ archive_builds_in_human_readable: '12 hours' })).fieldErrors).toEqual({
        archive_builds_in_human_readable: ['must be at least 1 day'],
      });
      expect((await refusal({ archive_builds_in_human_readable: 'soon' })).fieldErrors).toEqual({
        archive_builds_in_human_readable: ['is not a duration'],
      });
      for (const value of ['15 days', '1 month', '2 years', '']) {
        expect(
          (await read('update_application_settings', { settings: { archive_builds_in_human_readable: value } }))
            .archive_builds_in_human_readable,
        ).toBe(value);
      }
    });

    it('is for administrators only, before anything is checked', async () => {
      expect((await refusal({ signup_enabled: true }, 'anonymous')).status).toBe(401);
      // A regular user learns nothing of the rules: 403, not the spam filter's 400.
      expect((await refusal({ spamfilter_enabled: true, spamfilter_api_key: '' }, 'maintainer')).status).toBe(403);
    });

    it('records the change as an audit event naming the settings, never their values', async () => {
      await read('update_application_settings', {
        settings: { spamfilter_api_key: 'rotated-key', after_sign_out_path: '/bye' },
      });
      const event = auditEventsOf(suite.sandbox.store).at(-1)!;
      expect(event).toMatchObject({
        entity_type: 'User',
        details: { custom_message: 'Changed application settings: after_sign_out_path, spamfilter_api_key' },
      });
      expect(JSON.stringify(event)).not.toContain('rotated-key');
    });

    it('always asks a human, naming every setting and showing credentials by length only', () => {
      const op = suite.operation('update_application_settings');
      const decision = decide(
        op,
        validateInput(op, { settings: { signup_enabled: false, spamfilter_api_key: 'sf-key-123' } }) as Record<
          string,
          unknown
        >,
        { readOnly: false },
      );
      expect(decision.kind).toBe('approve');
      const prompt = decision.kind === 'approve' ? decision.prompt : '';
      expect(prompt).toContain('every user of the instance');
      expect(prompt).toContain('settings: {signup_enabled: false, spamfilter_api_key: <secret, 10 characters>}');
    });
  });

  suite.badInputCases([
    [
      'settings that are not an object',
      'update_application_settings',
      { settings: 'signup_enabled=false' },
      'settings',
    ],
    [
      "an external authorization timeout over the spec's 10 seconds",
      'update_application_settings',
      { settings: { external_authorization_service_timeout: 10.5 } },
      'settings.external_authorization_service_timeout',
    ],
    [
      'an external authorization timeout under 0.001 seconds',
      'update_application_settings',
      { settings: { external_authorization_service_timeout: '0' } },
      'settings.external_authorization_service_timeout',
    ],
  ]);
});

suite.coverageCase();
