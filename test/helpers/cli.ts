import { spawn } from 'node:child_process';
import { ROOT } from './process.ts';

export interface SvcRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `node bin/svc.js ...` as a person runs it, with only the environment given (PATH added), stdin
 * closed. `onStdout` sees the output so far, for commands that print something to act on.
 */
export function runSvc(
  args: string[],
  env: Record<string, string>,
  opts: { onStdout?: (text: string) => void; node?: string } = {},
): Promise<SvcRun> {
  const child = spawn(opts.node ?? process.execPath, ['bin/svc.js', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
    opts.onStdout?.(stdout);
  });
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** The lines of an output, without the empty last one. */
export const lines = (text: string) => text.split('\n').filter((l) => l !== '');
