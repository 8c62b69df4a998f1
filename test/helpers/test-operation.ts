// A test-only operation: its chat words, area, title and description follow from its name unless the test gives them.
import type { z } from 'zod';
import { defineOperation, type Operation } from '../../src/operations/engine/define.js';

type Spec<S extends z.ZodObject, F> = Parameters<typeof defineOperation<S, F>>[0];
type Derived = 'chat' | 'area' | 'title' | 'description';

/**
 * defineOperation for a test, which then spells out only what it is about (route, input, effect; a title where the
 * prompt under test shows it). Unless given: chat 'thing get' and title 'Get thing' for get_thing, area projects.
 */
export function testOperation<S extends z.ZodObject, F = never>(
  spec: Omit<Spec<S, F>, Derived> & Partial<Pick<Spec<S, F>, Derived>>,
): Operation<S, F> {
  const [verb, ...noun] = spec.name.split('_');
  const words = spec.name.replace(/_/g, ' ');
  return defineOperation<S, F>({
    chat: [...noun, verb].join(' '),
    area: 'projects',
    title: words.charAt(0).toUpperCase() + words.slice(1),
    description: `${spec.name}, an operation of the tests only.`,
    ...spec,
  });
}
