import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Waits outside the instance: an outbound fetch, a git clone. A request holds one of the
 * instance's few slots while it works (src/http/admission/overload.ts); while it only waits on
 * another server it gives the slot back and takes one again after, so slow remote ends (which a
 * stranger may choose) cannot fill the instance. The request pipeline says how for each request
 * (src/http/pipeline/shed.ts); outside a request, a wait is only a wait.
 */
type Away = <T>(wait: () => Promise<T>) => Promise<T>;

const awayScope = new AsyncLocalStorage<{ away?: Away }>();

/** Runs `fn` (one request's work) with its own way to wait outside, set later by `waitOutsideBy`. */
export function withOutsideWaits<T>(fn: () => T): T {
  return awayScope.run({}, fn);
}

/** How the current request waits outside from now on. */
export function waitOutsideBy(away: Away): void {
  const scope = awayScope.getStore();
  if (scope) scope.away = away;
}

/** Runs `wait`, a wait on another server, the way the current request waits outside. */
export function waitOutside<T>(wait: () => Promise<T>): Promise<T> {
  const away = awayScope.getStore()?.away;
  return away ? away(wait) : wait();
}
