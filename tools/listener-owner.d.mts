// Types of listener-owner.mjs, for the TypeScript tests that import it.
/** True when process `pid` holds a socket listening on `port`; false while it does not (yet), or is gone. */
export function listensOn(pid: number, port: number): boolean;
