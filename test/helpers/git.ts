import { createHmac, randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';

/** Runs git in `cwd` with a fixed author and `main` as the first branch; answers its trimmed output. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    'git',
    ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args],
    { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  ).trim();
}

/** The headers of a signed push-to-deploy call (REFERENCE: Push-to-deploy): a new delivery id unless given, the time `t` in Unix seconds. */
export function pushHeaders(
  secret: string,
  body: string,
  opts: { t: number; delivery?: string },
): Record<string, string> {
  const delivery = opts.delivery ?? `d-${randomUUID()}`;
  const v1 = createHmac('sha256', secret).update(`${opts.t}.${delivery}.${body}`).digest('hex');
  return {
    'Content-Type': 'application/json',
    'X-Service-Delivery': delivery,
    'X-Service-Signature': `t=${opts.t},v1=${v1}`,
  };
}
