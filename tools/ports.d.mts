// Types of ports.mjs, for the TypeScript tests that import it.
export interface PortReservation {
  port: number;
  /** Frees the port for its program, just before it starts. */
  release(): Promise<void>;
}
/** A free loopback port, held until `release()` frees it for the program meant for it (just before it starts). */
export function reservePort(): Promise<PortReservation>;
/**
 * A loopback port free now, for a program that binds it at once (one told of it in advance: reservePort). Another
 * program may still be given it before that bind: start the program with onFreePort, which chooses again then.
 */
export function freePort(): Promise<number>;
/**
 * What `start(port)` answers, on a port free when chosen; tried again on a new port when its error says the port was
 * taken meanwhile (`attempts` in all), any other error thrown at once. `start` stops what it started before it throws.
 */
export function onFreePort<T>(start: (port: number) => Promise<T>, attempts?: number): Promise<T>;
/** True when process `pid` holds a socket listening on `port`; false while it does not (yet), or is gone. */
export function listensOn(pid: number, port: number): boolean;
