import { createHash } from 'node:crypto';
import type { App } from '../../app-services.ts';
import { ApiError, badRequest } from '../../errors.ts';
import { runShellLine, SHELL_LINE_MAX, type ShellResult } from '../../provider/hosting/simulated-shell.ts';
import { siteQuota } from './service.ts';

// The far end of a browser-SSH session's URL (`/ssh-terminal/<session>#token=…`, panel.ts
// launchSsh): the token opens that one session of that one hosting account, until it is
// stopped, replaced by a new launch, or expires; then it opens nothing.

/** Every refusal of a session says the same, so a guess learns nothing about which part was wrong. */
const closed = () =>
  new ApiError(
    401,
    'This terminal session is not open: it was stopped, replaced by a newer one or has expired, or the token is wrong. Launch a new session from the console.',
  );

/** The live session a token opens (its hash is what is stored), on an account that is active with browser SSH on. */
async function openSession(app: App, sessionId: string, token: string) {
  if (!/^sshs_[\w-]{32}$/.test(token)) throw closed();
  const session = await app.prisma.hostingSshSession.findUnique({
    where: { tokenHash: createHash('sha256').update(token).digest('hex') },
    include: { hosting: true },
  });
  const now = app.clock.now();
  if (
    !session ||
    session.id !== sessionId ||
    session.endedAt !== null ||
    session.expiresAt <= now ||
    session.hosting.status !== 'active' ||
    !session.hosting.sshAccessEnabled
  )
    throw closed();
  return { session, now };
}

/** Runs one command line of the terminal in `cwd`; `exit` ends the session. */
export async function terminalLine(
  app: App,
  sessionId: string,
  token: string,
  input: { line?: unknown; cwd?: unknown },
): Promise<ShellResult & { expiresAt: Date }> {
  const { session, now } = await openSession(app, sessionId, token);
  if (typeof input.line !== 'string' || input.line.length > SHELL_LINE_MAX)
    throw badRequest(`line must be text of at most ${SHELL_LINE_MAX} characters.`, 'line');
  const cwd = typeof input.cwd === 'string' ? input.cwd : '/';
  const result = await runShellLine(
    {
      files: app.hosting,
      hostingId: session.hostingId,
      user: session.hosting.username,
      quota: await siteQuota(app.prisma, session.hosting),
      now,
    },
    cwd,
    input.line,
  );
  if (result.exit)
    await app.prisma.hostingSshSession.updateMany({ where: { id: session.id, endedAt: null }, data: { endedAt: now } });
  return { ...result, expiresAt: session.expiresAt };
}

/** Checks a token without running anything: what the page asks first, to say at once whether it can be used. */
export async function terminalHello(app: App, sessionId: string, token: string) {
  const { session } = await openSession(app, sessionId, token);
  return { sessionId: session.id, user: session.hosting.username, cwd: '/public_html', expiresAt: session.expiresAt };
}
