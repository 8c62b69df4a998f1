// The sandbox instance's application settings: their values at start (the spec's defaults where it gives them),
// and the "requires" rules of the spec's table, checked on the settings as they would be saved.
import { areaState } from '../../core/area.js';

type ApplicationSettings = Record<string, unknown>;

function defaultApplicationSettings(now: Date): ApplicationSettings {
  return {
    id: 1,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    default_projects_limit: 100000,
    signup_enabled: true,
    default_branch_protection: 2,
    restricted_visibility_levels: [],
    password_authentication_enabled_for_web: true,
    after_sign_out_path: null,
    after_sign_up_text: null,
    admin_notification_email: null,
    max_attachment_size: 10,
    user_oauth_applications: true,
    session_expire_delay: 10080,
    home_page_url: null,
    default_snippet_visibility: 'private',
    default_project_visibility: 'private',
    default_group_visibility: 'private',
    default_project_creation: 2,
    outbound_local_requests_whitelist: [],
    domain_whitelist: null,
    domain_blacklist_enabled: false,
    domain_blacklist: [],
    default_ci_config_path: null,
    default_artifacts_expire_in: '30 days',
    archive_builds_in_human_readable: null,
    avatarservice_enabled: true,
    sign_in_text: null,
    container_registry_token_expire_delay: 5,
    repository_storages: ['default'],
    diagramrenderer_enabled: false,
    diagramrenderer_url: null,
    terminal_max_session_time: 0,
    polling_interval_multiplier: 1,
    dsa_key_restriction: 0,
    rsa_key_restriction: 0,
    ecdsa_key_restriction: 0,
    ed25519_key_restriction: 0,
    first_day_of_week: 0,
    enforce_terms: false,
    terms: null,
    performance_bar_allowed_group_id: null,
    instance_statistics_visibility_private: false,
    user_show_add_ssh_key_message: true,
    local_markdown_version: 0,
    allow_local_requests_from_hooks_and_services: false,
    allow_local_requests_from_web_hooks_and_services: false,
    allow_local_requests_from_system_hooks: true,
    asset_proxy_enabled: false,
    asset_proxy_url: null,
    asset_proxy_secret_key: null,
    asset_proxy_whitelist: [],
    external_authorization_service_enabled: false,
    external_authorization_service_url: null,
    external_authorization_service_default_label: null,
    external_authorization_service_timeout: 0.5,
    external_auth_client_cert: null,
    external_auth_client_key: null,
    external_auth_client_key_pass: null,
    spamfilter_enabled: false,
    spamfilter_api_key: null,
    authorized_keys_enabled: true,
    auto_devops_enabled: true,
    auto_devops_domain: null,
    commit_email_hostname: 'users.noreply.sandbox.local',
    diff_max_patch_bytes: 204800,
    disabled_oauth_sign_in_sources: [],
    dns_rebinding_protection_enabled: true,
    email_author_in_body: false,
    enabled_git_access_protocol: null,
    cloudk8s_integration_enabled: false,
    cloudk8s_account_id: null,
    cloudk8s_access_key_id: null,
    cloudk8s_secret_access_key: null,
    allow_group_owners_to_manage_ldap: true,
    check_namespace_plan: false,
    email_additional_text: null,
    file_template_project_id: null,
    searchindex_indexing: false,
    searchindex_search: false,
    searchindex_url: 'http://localhost:9200',
    searchindex_aws: false,
    searchindex_aws_region: 'us-east-1',
    searchindex_aws_access_key: null,
    searchindex_aws_secret_access_key: null,
    searchindex_limit_indexing: false,
    searchindex_namespace_ids: [],
    searchindex_project_ids: [],
    geo_node_allowed_ips: '0.0.0.0/0, ::/0',
    geo_status_timeout: 10,
    deletion_adjourned_period: 7,
  };
}

/** The spec's "requires" rules: when the setting on the left is enabled, each companion must hold a value. */
const REQUIRES: Record<string, string[]> = {
  spamfilter_enabled: ['spamfilter_api_key'],
  asset_proxy_enabled: ['asset_proxy_url'],
  domain_blacklist_enabled: ['domain_blacklist'],
  enforce_terms: ['terms'],
  external_authorization_service_enabled: [
    'external_authorization_service_default_label',
    'external_authorization_service_timeout',
    'external_authorization_service_url',
  ],
};

const blank = (value: unknown) =>
  value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);

/** The model errors of settings as they would be saved: {"spamfilter_api_key": ["can't be blank"]}, … */
export function settingsErrors(settings: ApplicationSettings): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const [flag, companions] of Object.entries(REQUIRES)) {
    if (settings[flag] !== true) continue;
    for (const companion of companions) if (blank(settings[companion])) errors[companion] = ["can't be blank"];
  }
  // "key required by certificate": a client certificate is useless without its key.
  if (!blank(settings.external_auth_client_cert) && blank(settings.external_auth_client_key)) {
    errors.external_auth_client_key = ["can't be blank"];
  }
  const archive = settings.archive_builds_in_human_readable;
  if (typeof archive === 'string' && archive !== '') {
    const seconds = durationSeconds(archive);
    if (seconds === undefined) errors.archive_builds_in_human_readable = ['is not a duration'];
    else if (seconds < DAY_SECONDS) errors.archive_builds_in_human_readable = ['must be at least 1 day'];
  }
  return errors;
}

const DAY_SECONDS = 24 * 60 * 60;
const UNIT_SECONDS: Record<string, number> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: DAY_SECONDS,
  week: 7 * DAY_SECONDS,
  month: 30 * DAY_SECONDS,
  year: 365 * DAY_SECONDS,
};

const DURATION = /^(?:\s*\d+(?:\.\d+)?\s*[a-z]+\s*,?\s*(?:and\b)?)+$/i;

/** "15 days", "1 month", "2 years and 3 days", "12h" → seconds; undefined when it is not a duration. */
function durationSeconds(text: string): number | undefined {
  if (!DURATION.test(text)) return undefined;
  let total = 0;
  for (const [, amount, word] of text.toLowerCase().matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/g)) {
    const unit = Object.keys(UNIT_SECONDS).find(
      (name) => word === name || word === `${name}s` || (word.length <= 3 && name.startsWith(word)),
    );
    if (!unit) return undefined;
    total += Number(amount) * UNIT_SECONDS[unit];
  }
  return total;
}

/** The instance's application settings, one object per sandbox, created with the defaults dated at the store's start. */
export const applicationSettingsOf = areaState('application_settings', (store) =>
  defaultApplicationSettings(store.createdAt),
);
