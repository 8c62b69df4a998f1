// The error a promise is rejected with, checked to be of the kind a test expects: one place for the then/instanceof
// dance the tests of refusals share.
import { expect } from 'vitest';

type ErrorKind<E> = abstract new (...args: any[]) => E;

/** Waits for `promise` to be rejected and returns the error, failing the test if it resolves or throws another kind. */
export async function rejectionOf<E>(promise: Promise<unknown>, kind: ErrorKind<E>): Promise<E> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(kind);
  return error as E;
}
