// Instance application settings (administrators only: 401 without a token, 403 for anyone else): GET gives the
// whole object; PUT takes any of the settings, checks each value's type and range (a framework error, as the
// service's parameter declarations give), then the spec's "requires" rules on the settings as they would be
// saved (a model error naming the missing companion), and answers the whole object. Nothing is saved on a refusal.
import { z } from 'zod';
import { settingsErrors } from './state.js';
import { recordAuditEvent } from '../../core/audit.js';
import type { SandboxContext } from '../../core/context.js';
import { validationError } from '../../core/errors.js';
import { param } from '../../core/params.js';
import type { Router } from '../../core/router.js';
import { applicationSettingsOf } from './state.js';

const text = () => z.string();
const flag = () => param.boolean();
const int = (min?: number, max?: number) => {
  let schema = z.number().int();
  if (min !== undefined) schema = schema.min(min);
  if (max !== undefined) schema = schema.max(max);
  return z.preprocess((v) => (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v), schema);
};
const VISIBILITY = ['private', 'internal', 'public'] as const;
/** Minimum key bits: 0 no restriction, -1 the key type is refused. */
const keyRestriction = () => int(-1);
const strings = () => param.array(z.string());

/** The settings of the spec's table, plus the response fields an administrator commonly sets. */
const settingsParams = z
  .object({
    admin_notification_email: text(),
    after_sign_out_path: text(),
    after_sign_up_text: text(),
    spamfilter_enabled: flag(),
    spamfilter_api_key: text(),
    allow_group_owners_to_manage_ldap: flag(),
    allow_local_requests_from_hooks_and_services: flag(),
    allow_local_requests_from_system_hooks: flag(),
    allow_local_requests_from_web_hooks_and_services: flag(),
    archive_builds_in_human_readable: text(),
    asset_proxy_enabled: flag(),
    asset_proxy_url: text(),
    asset_proxy_secret_key: text(),
    asset_proxy_whitelist: z.union([text(), strings()]),
    authorized_keys_enabled: flag(),
    auto_devops_domain: text(),
    auto_devops_enabled: flag(),
    check_namespace_plan: flag(),
    commit_email_hostname: text(),
    container_registry_token_expire_delay: int(1),
    default_artifacts_expire_in: text(),
    default_branch_protection: int(0, 2),
    default_ci_config_path: text(),
    default_group_visibility: param.enum(VISIBILITY),
    default_project_visibility: param.enum(VISIBILITY),
    default_snippet_visibility: param.enum(VISIBILITY),
    default_project_creation: int(0, 2),
    default_projects_limit: int(0),
    diff_max_patch_bytes: int(0),
    disabled_oauth_sign_in_sources: strings(),
    dns_rebinding_protection_enabled: flag(),
    domain_blacklist_enabled: flag(),
    domain_blacklist: strings(),
    domain_whitelist: strings(),
    dsa_key_restriction: keyRestriction(),
    ecdsa_key_restriction: keyRestriction(),
    ed25519_key_restriction: keyRestriction(),
    rsa_key_restriction: keyRestriction(),
    cloudk8s_integration_enabled: flag(),
    cloudk8s_account_id: text(),
    cloudk8s_access_key_id: text(),
    cloudk8s_secret_access_key: text(),
    searchindex_aws_access_key: text(),
    searchindex_aws: flag(),
    searchindex_aws_region: text(),
    searchindex_aws_secret_access_key: text(),
    searchindex_indexing: flag(),
    searchindex_limit_indexing: flag(),
    searchindex_search: flag(),
    searchindex_url: text(),
    searchindex_namespace_ids: param.array(int()),
    searchindex_project_ids: param.array(int()),
    email_additional_text: text(),
    email_author_in_body: flag(),
    enabled_git_access_protocol: param.enum(['ssh', 'http', 'nil']),
    enforce_terms: flag(),
    terms: text(),
    external_auth_client_cert: text(),
    external_auth_client_key: text(),
    external_auth_client_key_pass: text(),
    external_authorization_service_enabled: flag(),
    external_authorization_service_default_label: text(),
    external_authorization_service_url: text(),
    external_authorization_service_timeout: z.preprocess(
      (v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v),
      z.number().min(0.001).max(10),
    ),
    file_template_project_id: int(1),
    // 0 Sunday, 1 Monday, 6 Saturday: the only first days the service offers.
    first_day_of_week: int(0, 6).refine((day) => [0, 1, 6].includes(day as number)),
    geo_node_allowed_ips: text(),
    signup_enabled: flag(),
    password_authentication_enabled_for_web: flag(),
    home_page_url: text(),
    sign_in_text: text(),
    max_attachment_size: int(1),
    session_expire_delay: int(1),
    user_oauth_applications: flag(),
  })
  .partial();

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;

  router.route('GET', '/application/settings', { auth: 'admin' }, (_req, reply) => {
    reply.json(applicationSettingsOf(store));
  });

  router.route('PUT', '/application/settings', { params: settingsParams, auth: 'admin' }, (req, reply) => {
    const changes: Record<string, unknown> = Object.fromEntries(
      Object.entries(req.params).filter(([, value]) => value !== undefined),
    );
    // "nil" is how the spec writes "both protocols" for enabled_git_access_protocol.
    if (changes.enabled_git_access_protocol === 'nil') changes.enabled_git_access_protocol = null;
    const next = { ...applicationSettingsOf(store), ...changes };
    const errors = settingsErrors(next);
    if (Object.keys(errors).length > 0) throw validationError(errors);
    Object.assign(applicationSettingsOf(store), changes, { updated_at: new Date().toISOString() });
    const admin = ctx.requireUser(req);
    // The keys only: several settings are credentials, and an audit event is no place for them.
    recordAuditEvent(
      store,
      admin,
      { type: 'User', user: admin },
      {
        custom_message: `Changed application settings: ${Object.keys(changes).join(', ')}`,
        target_type: 'ApplicationSetting',
      },
    );
    reply.json(applicationSettingsOf(store));
  });
}
