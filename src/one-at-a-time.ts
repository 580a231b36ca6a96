/**
 * Runs `work` one call at a time: a call made while one runs waits for it to finish, then runs
 * its own (so work that arrived meanwhile is never skipped). `settled` waits for the run in
 * progress, if any — what a graceful stop needs.
 */
export function oneAtATime<T>(work: () => Promise<T>): { run(): Promise<T>; settled(): Promise<void> } {
  let current: Promise<T> | undefined;
  return {
    async run() {
      while (current) await current.catch(() => undefined);
      const mine = work();
      current = mine;
      try {
        return await mine;
      } finally {
        current = undefined;
      }
    },
    async settled() {
      await current?.catch(() => undefined);
    },
  };
}
