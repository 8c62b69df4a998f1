// Contract: group CI/CD variables against the sandbox — the key rule (255 characters of A-Z a-z 0-9 _) and a taken
// key refused as model errors, variable_type and protected, maintainers only (401, 403, 404 for a hidden group),
// every value masked in every result unless a read asks to reveal it (and a human approves), and a value sent never
// shown in an approval request.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { validateInput } from '../../src/operations/engine/validate.js';
import { decide } from '../../src/policy/policy.js';
import { groupVariablesOf } from '../../src/sandbox/areas/group-variables/state.js';
import { expectRefusal } from './builders.js';
import { contractSuite, type Role } from './harness.js';

const suite = contractSuite('group_variables');
const ACME = 'acme';
const PLATFORM = 'acme/platform';

interface Variable {
  key: string;
  value: string;
  variable_type: string;
  protected: boolean;
}

function read(name: string, input: Record<string, unknown>, as: Role = 'maintainer'): Promise<Variable & Variable[]> {
  return suite.data<Variable & Variable[]>(name, input, as);
}

/** A value as every result shows it unless revealed: its length and the first 8 hex digits of its SHA-256. */
const masked = (value: string) =>
  `<secret, ${value.length} characters, sha256 ${createHash('sha256').update(value).digest('hex').slice(0, 8)}…>`;

/** What the sandbox holds, bypassing forgeops' masking. */
const stored = (key: string) => groupVariablesOf(suite.sandbox.store).find((v) => v.key === key);

describe.shuffle('group-variables, in any order', () => {
  describe('reading', () => {
    it("lists a group's variables with every value masked, and reads one", async () => {
      const all = await read('list_group_variables', { id: ACME });
      // The seeded three come first, in the order they were made; tests that create variables in acme add theirs after.
      expect(all.slice(0, 3)).toEqual([
        { key: 'DEPLOY_ENV', value: masked('staging'), variable_type: 'env_var', protected: false },
        { key: 'REGISTRY_PASSWORD', value: masked('reg-pass-4f9a'), variable_type: 'env_var', protected: true },
        { key: 'KUBECONFIG', value: masked(stored('KUBECONFIG')!.value), variable_type: 'file', protected: true },
      ]);
      // The service did send the value: the masking is forgeops' own.
      expect(stored('REGISTRY_PASSWORD')?.value).toBe('reg-pass-4f9a');
      expect(await read('get_group_variable', { id: PLATFORM, key: 'LOG_LEVEL' })).toEqual({
        key: 'LOG_LEVEL',
        value: masked('info'),
        variable_type: 'env_var',
        protected: false,
      });
      expect((await read('get_group_variable', { id: PLATFORM, key: 'PAYMENTS_API_KEY' })).value).toBe(
        masked(stored('PAYMENTS_API_KEY')!.value),
      );
      const missing = await suite.refusal('get_group_variable', { id: ACME, key: 'NOPE' });
      expect([missing.status, missing.message]).toEqual([404, '404 Variable Not Found']);
    });

    it('masks a value whatever its key says (AWS_KEY), in what a create answers too', async () => {
      const created = await read('create_group_variable', {
        id: PLATFORM,
        key: 'AWS_KEY',
        value: 'AKIAIOSFODNN7EXAMPLE',
      });
      expect(created).toEqual({
        key: 'AWS_KEY',
        value: masked('AKIAIOSFODNN7EXAMPLE'),
        variable_type: 'env_var',
        protected: false,
      });
      expect(stored('AWS_KEY')?.value).toBe('AKIAIOSFODNN7EXAMPLE');
    });

    it('reveals values only when asked, after a human approves, and never sends reveal to the service', async () => {
      const get = suite.operation('get_group_variable');
      expect(
        decide(get, validateInput(get, { id: PLATFORM, key: 'LOG_LEVEL' }) as Record<string, unknown>, {
          readOnly: false,
        }).kind,
      ).toBe('run');
      const asked = decide(
        get,
        validateInput(get, { id: PLATFORM, key: 'LOG_LEVEL', reveal: true }) as Record<string, unknown>,
        { readOnly: true },
      );
      expect(asked).toMatchObject({ kind: 'approve', reason: expect.stringMatching(/unmasked, to you alone/) });
      const list = suite.operation('list_group_variables');
      expect(decide(list, { id: ACME, reveal: true }, { readOnly: false }).kind).toBe('approve');
      const before = suite.requests().length;
      const revealed = await suite.call('get_group_variable', { id: PLATFORM, key: 'LOG_LEVEL', reveal: true });
      expect(revealed).toMatchObject({ revealed: true, data: { key: 'LOG_LEVEL', value: 'info' } });
      const sent = suite.requests().slice(before);
      expect(sent.map((r) => r.path)).toEqual(['/groups/acme%2Fplatform/variables/LOG_LEVEL']);
      expect(JSON.stringify(sent)).not.toContain('reveal');
      const all = (await suite.call('list_group_variables', { id: ACME, reveal: true })).data as Variable[];
      expect(all.find((v) => v.key === 'REGISTRY_PASSWORD')?.value).toBe('reg-pass-4f9a');
    });
  });

  describe('changes', () => {
    it('creates a variable with its type and protection, replaces its value, and deletes it', async () => {
      const created = await suite.call(
        'create_group_variable',
        { id: ACME, key: 'CACHE_DIR', value: '/cache', variable_type: 'file', protected: false },
        { as: 'maintainer' },
      );
      expect([created.status, created.data]).toEqual([
        201,
        { key: 'CACHE_DIR', value: masked('/cache'), variable_type: 'file', protected: false },
      ]);
      const updated = await read('update_group_variable', {
        id: ACME,
        key: 'CACHE_DIR',
        value: '/var/cache',
        variable_type: 'env_var',
        protected: true,
      });
      expect(updated).toEqual({
        key: 'CACHE_DIR',
        value: masked('/var/cache'),
        variable_type: 'env_var',
        protected: true,
      });
      expect(stored('CACHE_DIR')).toMatchObject({ value: '/var/cache', variable_type: 'env_var', protected: true });
      // Type and protection left out stay.
      await read('update_group_variable', { id: ACME, key: 'CACHE_DIR', value: '/tmp' });
      expect(stored('CACHE_DIR')).toMatchObject({ value: '/tmp', variable_type: 'env_var', protected: true });
      const deleted = await suite.call('delete_group_variable', { id: ACME, key: 'CACHE_DIR' });
      expect([deleted.status, deleted.data]).toEqual([204, null]);
      expect((await suite.refusal('get_group_variable', { id: ACME, key: 'CACHE_DIR' })).status).toBe(404);
    });

    it('defaults to env_var and unprotected; the same key may live in another group', async () => {
      expect(await read('create_group_variable', { id: PLATFORM, key: 'DEPLOY_ENV', value: 'prod' })).toEqual({
        key: 'DEPLOY_ENV',
        value: masked('prod'),
        variable_type: 'env_var',
        protected: false,
      });
    });

    it('refuses a key that is taken, too long or with other characters, as the service words it', async () => {
      const taken = await suite.refusal('create_group_variable', { id: ACME, key: 'DEPLOY_ENV', value: 'x' });
      expect([taken.status, taken.fieldErrors]).toEqual([400, { key: ['(DEPLOY_ENV) has already been taken'] }]);
      expect(stored('DEPLOY_ENV')?.value).toBe('staging');
      // forgeops checks the key before sending; a client that does not meets the service's own refusal.
      const raw = async (key: string) => {
        const response = await fetch(`${suite.sandbox.url}/api/v4/groups/acme/variables`, {
          method: 'POST',
          headers: { 'private-token': suite.sandbox.tokens.maintainer, 'content-type': 'application/json' },
          body: JSON.stringify({ key, value: 'x' }),
        });
        return [response.status, await response.json()];
      };
      expect(await raw('A'.repeat(256))).toEqual([
        400,
        { message: { key: ['is too long (maximum is 255 characters)'] } },
      ]);
      expect(await raw('MY-KEY')).toEqual([400, { message: { key: ["can contain only letters, digits and '_'."] } }]);
      expect(await raw('A'.repeat(255))).toEqual([
        201,
        { key: 'A'.repeat(255), value: 'x', variable_type: 'env_var', protected: false },
      ]);
    });

    it('refuses an unknown variable_type', async () => {
      const response = await fetch(`${suite.sandbox.url}/api/v4/groups/acme/variables`, {
        method: 'POST',
        headers: { 'private-token': suite.sandbox.tokens.maintainer, 'content-type': 'application/json' },
        body: JSON.stringify({ key: 'K', value: 'x', variable_type: 'secret' }),
      });
      expect([response.status, await response.json()]).toEqual([
        400,
        { error: 'variable_type does not have a valid value' },
      ]);
    });
  });

  describe('refusals', () => {
    it('needs a token, maintainer access, and hides a private group from a non-member', async () => {
      expect((await suite.refusal('list_group_variables', { id: ACME }, 'anonymous')).status).toBe(401);
      for (const role of ['developer', 'reporter', 'guest', 'outsider'] as const) {
        const error = await suite.refusal('get_group_variable', { id: ACME, key: 'DEPLOY_ENV' }, role);
        expect([error.status, error.message], role).toEqual([403, '403 Forbidden']);
      }
      expect((await suite.refusal('delete_group_variable', { id: ACME, key: 'DEPLOY_ENV' }, 'developer')).status).toBe(
        403,
      );
      await expectRefusal(suite, 'list_group_variables', { id: PLATFORM }, 'outsider', [404, '404 Group Not Found']);
      expect(stored('DEPLOY_ENV')?.value).toBe('staging');
    });
  });

  describe('decisions', () => {
    const decision = (name: string, raw: Record<string, unknown>) => {
      const op = suite.operation(name);
      return decide(op, validateInput(op, raw) as Record<string, unknown>, { readOnly: false });
    };

    it('always asks before replacing a value, showing the value by its length only', () => {
      const asked = decision('update_group_variable', { id: ACME, key: 'REGISTRY_PASSWORD', value: 'hunter2-new' });
      expect(asked.kind).toBe('approve');
      const prompt = asked.kind === 'approve' ? asked.prompt : '';
      expect(prompt).toContain('replaces the value of REGISTRY_PASSWORD');
      expect(prompt).toContain('group: "acme"');
      expect(prompt).toContain('value: <secret, 11 characters>');
      expect(prompt).not.toContain('hunter2');
      expect(decision('delete_group_variable', { id: ACME, key: 'DEPLOY_ENV' })).toMatchObject({ kind: 'approve' });
      expect(decision('create_group_variable', { id: ACME, key: 'K', value: 'v' })).toEqual({ kind: 'run' });
    });
  });

  suite.pagingCase('list_group_variables', { id: ACME });

  suite.badInputCases([
    ['a key with a dash', 'create_group_variable', { id: ACME, key: 'MY-KEY', value: 'x' }, 'key'],
    ['a key of 256 characters', 'create_group_variable', { id: ACME, key: 'K'.repeat(256), value: 'x' }, 'key'],
    ['an update without a value', 'update_group_variable', { id: ACME, key: 'DEPLOY_ENV' }, 'value'],
    [
      'an unknown variable type',
      'create_group_variable',
      { id: ACME, key: 'K', value: 'x', variable_type: 'secret' },
      'variable_type',
    ],
  ]);
});

suite.coverageCase();
