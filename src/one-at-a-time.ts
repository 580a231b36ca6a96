/**
 * Runs `work` one call at a time: a call made while one runs waits for it to finish, then runs
 * its own (so work that arrived meanwhile is never skipped). `request` is the coalescing form
 * for wake-ups: it asks for a run that starts after the call, and a burst of requests while a
 * run is in flight costs exactly one more run, not one each. `settled` waits for the run in
 * progress, if any — what a graceful stop needs.
 */
export function oneAtATime<T>(work: () => Promise<T>): {
  run(): Promise<T>;
  request(): Promise<T>;
  settled(): Promise<void>;
} {
  let current: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const start = async (): Promise<T> => {
    const mine = work();
    current = mine;
    try {
      return await mine;
    } finally {
      current = undefined;
    }
  };
  return {
    async run() {
      while (current) await current.catch(() => undefined);
      return start();
    },
    request() {
      if (queued) return queued;
      let waiting = true;
      const mine = (async () => {
        while (current) await current.catch(() => undefined);
        // From here on the run may miss what a new request is about: let that one queue again.
        waiting = false;
        queued = undefined;
        return start();
      })();
      if (waiting) queued = mine;
      return mine;
    },
    async settled() {
      await current?.catch(() => undefined);
    },
  };
}
