import { refusal } from '../../errors.ts';
import type { Tx } from '../../db/tx.ts';
import type { SerialConsole } from '../../provider/serial-console.ts';
import type { ServerProvider } from '../../provider/types.ts';
import { getServer, lockServer, type ServiceContext } from './server-row.ts';

// The web console: the datacenter's serial console of a running server, reached through a
// short-lived, single-use URL (`/server-console/<server>#ticket=…`) whose page streams it over
// the app's WebSocket (src/http/pages/server-console.ts).

export const CONSOLE_NEEDS_RUNNING = refusal(409, 'Only a running server has a console');

/**
 * A URL that opens the server's web console once, before it expires. Only a running server has
 * one; a private-only pool server has one like any other. The ticket is the datacenter's: the
 * app keeps nothing of it, and the datacenter keeps only its hash.
 */
export async function openServerConsole(ctx: ServiceContext, serverId: string) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    await lockServer(tx, serverId);
    const server = await getServer(tx, serverId);
    if (server.status !== 'running')
      throw CONSOLE_NEEDS_RUNNING.error(`Only a running server has a console; this one is ${server.status}.`);
    const { ticket, expiresAt } = await ctx.app.provider.consoleLogin(tx, serverId, now);
    return {
      serverId,
      url: `${ctx.app.config.publicBaseUrl}/server-console/${serverId}#ticket=${ticket}`,
      expiresAt,
    };
  });
}

/**
 * The console a ticket opens, for one WebSocket connection: the ticket is used up whether or not
 * the server still runs. Null for an unknown, used or expired ticket, or a server no longer running.
 */
export async function attachServerConsole(
  app: { prisma: Tx; provider: ServerProvider; clock: { now(): Date } },
  ticket: string,
): Promise<{ serverId: string; console: SerialConsole } | null> {
  const now = app.clock.now();
  const serverId = await app.provider.redeemConsoleTicket(app.prisma, ticket, now);
  if (!serverId) return null;
  const server = await app.prisma.server.findUnique({ where: { id: serverId }, select: { status: true } });
  if (server?.status !== 'running') return null;
  return { serverId, console: await app.provider.serialConsole(app.prisma, serverId, now) };
}
