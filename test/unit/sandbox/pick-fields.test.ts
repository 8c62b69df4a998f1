// pickFields: a view's fields copied as they are, in the order named (the order of the service's JSON keys).
import { describe, expect, it } from 'vitest';
import { pickFields } from '../../../src/sandbox/core/views.js';

describe('pickFields', () => {
  it('copies the named fields in the order named, leaving the others out', () => {
    const entity = { id: 7, name: 'web', secret: 's', state: 'available' };
    const view = pickFields(entity, ['state', 'id', 'name']);
    expect(JSON.stringify(view)).toBe('{"state":"available","id":7,"name":"web"}');
  });

  it('keeps a field that is null as null', () => {
    expect(pickFields({ id: 1, parent_id: null }, ['parent_id'])).toEqual({ parent_id: null });
  });
});
