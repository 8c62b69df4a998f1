// Credentials kept out of what is recorded: an operation's own secret inputs (a CI variable's value) are redacted.
import { describe, expect, it } from 'vitest';
import { findOperation } from '../../../src/operations/index.js';
import { REDACTED, redactSecretInputs } from '../../../src/operations/secrets.js';

describe('redactSecretInputs', () => {
  it('redacts exactly the inputs the operation declares secret, and leaves an empty value as it is', () => {
    const op = findOperation('update_group_variable')!;
    expect(op.secretInputs).toEqual(['value']);
    const input = { id: 'acme', key: 'REGISTRY_PASSWORD', value: 'hunter2', protected: true };
    expect(redactSecretInputs(op.secretInputs, input)).toEqual({ ...input, value: REDACTED });
    expect(redactSecretInputs(op.secretInputs, { ...input, value: '' })).toEqual({ ...input, value: '' });
    // The input itself is not changed: it is what runs.
    expect(input.value).toBe('hunter2');
    expect(redactSecretInputs(undefined, input)).toBe(input);
  });

  it('is declared by both operations that send a variable value', () => {
    for (const name of ['create_group_variable', 'update_group_variable']) expect(findOperation(name)?.secretInputs, name).toContain('value');
  });
});
