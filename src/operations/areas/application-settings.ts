// Application settings area (administrators): read the instance's settings, and change them. Several settings
// are credentials (the spam filter's key, the asset proxy's secret, client keys): every answer is redacted
// (redactSecrets), and an approval request shows them by length only.
import { z } from 'zod';
import { defineOperation, defineArea } from '../engine/define.js';
import { redactSecrets } from '../engine/secrets.js';

const settingValue = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.null(),
  z.array(z.union([z.string(), z.number()])),
]);

/** Ranges the spec states for a setting (seconds of the external authorization timeout). */
const SETTING_RANGES: Record<string, readonly [min: number, max: number]> = {
  external_authorization_service_timeout: [0.001, 10],
};

/** The settings object, with the spec's ranges checked (by value, so the published schema stays one open object). */
const settings = z.record(z.string(), settingValue).superRefine((values, ctx) => {
  for (const [key, [min, max]] of Object.entries(SETTING_RANGES)) {
    const value = values[key];
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number === 'number' && !(number >= min && number <= max)) {
      ctx.addIssue({ code: 'custom', path: [key], message: `must be from ${min} to ${max}` });
    }
  }
});

const get = defineOperation({
  name: 'get_application_settings',
  chat: 'settings get',
  area: 'application_settings',
  title: 'Get application settings',
  description: 'Administrators only: every instance setting as one object, credentials redacted.',
  adminOnly: true,
  route: 'GET /application/settings',
  input: z.object({}),
  effect: 'read',
  redact: redactSecrets,
  examples: [{ input: {} }],
});

const update = defineOperation({
  name: 'update_application_settings',
  chat: 'settings set',
  area: 'application_settings',
  title: 'Update application settings',
  description: 'Administrators only: change instance settings; those left out stay.',
  adminOnly: true,
  route: 'PUT /application/settings',
  input: z.object({
    // One open object, not every setting: there are over a hundred, and each key costs every assistant tokens.
    settings: settings.describe(
      'By name, e.g. {"signup_enabled": false}; some need companions (spamfilter_enabled: spamfilter_api_key).',
    ),
  }),
  effect: 'destructive',
  undo:
    'The values it replaces are kept nowhere and apply to every user of the instance at once; ' +
    'read get_application_settings first to set them back by hand.',
  spreadInput: 'settings',
  redact: redactSecrets,
  // Instance settings apply to every user at once, and the values replaced are kept nowhere.
  decisions: { runs: [], asks: [{ settings: { signup_enabled: false } }, { settings: {} }] },
});

const applicationSettingsOperations = [get, update];

export const area = defineArea({ name: 'application_settings', operations: applicationSettingsOperations });
