// Group CI/CD variables of the sandbox: their record, the key rule of the spec, and the demo variables.
//
// Demo: acme has DEPLOY_ENV (plain), REGISTRY_PASSWORD (protected) and KUBECONFIG (a protected file);
// acme/platform has PAYMENTS_API_KEY (protected) and LOG_LEVEL.
import type { Store } from '../../core/store.js';
import { areaState } from '../../core/area.js';

export interface GroupVariable {
  group_id: number;
  key: string;
  value: string;
  variable_type: 'env_var' | 'file';
  protected: boolean;
}

const MAX_KEY_LENGTH = 255;

/** The service's model errors for a key (the spec: at most 255 characters, only A-Z a-z 0-9 and underscore). */
export function keyErrors(key: string): string[] {
  const errors: string[] = [];
  if (key === '') errors.push("can't be blank");
  if (key.length > MAX_KEY_LENGTH) errors.push(`is too long (maximum is ${MAX_KEY_LENGTH} characters)`);
  if (!/^[A-Za-z0-9_]*$/.test(key)) errors.push("can contain only letters, digits and '_'.");
  return errors;
}

const SEED: Record<string, Array<Omit<GroupVariable, 'group_id'>>> = {
  acme: [
    { key: 'DEPLOY_ENV', value: 'staging', variable_type: 'env_var', protected: false },
    { key: 'REGISTRY_PASSWORD', value: 'reg-pass-4f9a', variable_type: 'env_var', protected: true },
    {
      key: 'KUBECONFIG',
      value: 'apiVersion: v1\nkind: Config\nclusters: []\n',
      variable_type: 'file',
      protected: true,
    },
  ],
  'acme/platform': [
    { key: 'PAYMENTS_API_KEY', value: 'pk_live_51H8', variable_type: 'env_var', protected: true },
    { key: 'LOG_LEVEL', value: 'info', variable_type: 'env_var', protected: false },
  ],
};

export function seedGroupVariables(store: Store): void {
  for (const [path, variables] of Object.entries(SEED)) {
    const group = store.findGroup(path)!;
    for (const variable of variables) groupVariablesOf(store).push({ group_id: group.id, ...variable });
  }
}

/** Group CI/CD variables of every group. */
export const groupVariablesOf = areaState('group_variables', (): GroupVariable[] => []);
