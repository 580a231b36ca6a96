import { randomBytes } from 'node:crypto';
import type { App } from '../../app-services.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { tenantClient } from '../../db/tenant.ts';
import { withClockTimestamps } from '../../db/timestamps.ts';
import { runDueJobs, type JobHandler } from '../../provider/jobs.ts';
import { HOSTING_PROVISION_SECONDS } from '../../provider/hosting/simulated.ts';
import { chargeServerOrder, operatorDeposit, operatorInvoice } from '../billing/service.ts';
import { orderDomain } from '../domains/service.ts';
import { writeFile } from '../hosting/files.ts';
import { orderHosting } from '../hosting/service.ts';
import { createMailbox, enableMailDomain } from '../mail/service.ts';
import { createServerInPool } from '../pools/members.ts';
import { createPool } from '../pools/service.ts';
import { attachAddon } from '../servers/addons.ts';
import { orderServer } from '../servers/service.ts';
import { createSnapshot } from '../servers/snapshots.ts';
import { createTicket, staffReply } from '../tickets/service.ts';

/** The demo's domain: registered, hosted, and its mail hosted (docs/REFERENCE.md: Demo account). */
const DEMO_DOMAIN = 'acme-demo.com';

/** The demo's history starts this long (plus the provisioning wait) before the first start. */
const HISTORY_SECONDS = 2 * 86_400;

/**
 * The demo account's time: its story happened in the past, so the simulated clock everyone
 * else reads never moves. A timeline only goes forward, and every story ends before now.
 */
class DemoTimeline {
  private at: Date;
  constructor(start: Date) {
    this.at = start;
  }
  now(): Date {
    return new Date(this.at);
  }
  wait(seconds: number): Date {
    this.at = new Date(this.at.getTime() + seconds * 1000);
    return this.now();
  }
  /** Moves on to `time` (or stays, if the story is already past it). */
  until(time: Date): Date {
    if (time > this.at) this.at = new Date(time);
    return this.now();
  }
}

export interface DemoWorld {
  /** The simulated datacenter's job handlers (servers and hosting), run at the demo's time. */
  jobHandlers: Record<string, JobHandler>;
}

export interface DemoStory {
  timeline: DemoTimeline;
  /** The database client the demo writes with: row timestamps from the timeline, not the live clock. */
  prisma: PrismaClient;
}

function storyFrom(app: App, start: Date): DemoStory {
  const timeline = new DemoTimeline(start);
  return { timeline, prisma: withClockTimestamps(app.db.prisma, () => timeline.now()) };
}

export function startDemoStory(app: App): DemoStory {
  return storyFrom(app, new Date(app.clock.now().getTime() - (HISTORY_SECONDS + app.config.provisionSeconds) * 1000));
}

/**
 * Fills the demo account through the same services the API and the operator API call, so its
 * events, invoices and wallet transactions agree with each other: a registered domain with
 * hosted mail and a mailbox, three running servers (one in a capacity pool) with snapshots and
 * add-ons, a hosting account with its site, a deposit, paid and open invoices, and a ticket
 * support has answered. Every step happens at the demo timeline's time; the provider's jobs
 * (server builds, the site) run when that time reaches them, as the ticker would have run them.
 */
export async function fillDemoAccount(app: App, accountId: string, world: DemoWorld, story: DemoStory): Promise<void> {
  const { timeline, prisma } = story;
  const context = (s: DemoStory) => ({
    db: tenantClient(s.prisma, accountId),
    principal: { accountId },
    app: { ...app, prisma: s.prisma, clock: s.timeline },
  });
  const ctx = context(story);
  const runJobs = () => runDueJobs(prisma, world.jobHandlers, timeline.now());
  const endOfStory = new Date(app.clock.now().getTime() - 3600 * 1000);

  await operatorDeposit(prisma, accountId, { amountUsdCents: 10_000, gateway: 'card' }, timeline.wait(120));
  await orderDomain(prisma, accountId, { domain: DEMO_DOMAIN, periodYears: 1, charge: true }, timeline.wait(300));

  // Mail for the domain, on a timeline of its own: it touches no wallet, invoice or event, so it
  // runs beside the rest, and its key and password hashing (worker threads) overlap the queries.
  const mailStory = storyFrom(app, timeline.now());
  const mail = async () => {
    const mailCtx = context(mailStory);
    mailStory.timeline.wait(600);
    const domain = await enableMailDomain(mailCtx, { domain: DEMO_DOMAIN });
    mailStory.timeline.wait(120);
    await createMailbox(mailCtx, {
      domainId: domain.id,
      localPart: 'hello',
      password: randomBytes(12).toString('base64url'),
    });
  };
  const failed = (await Promise.allSettled([mail(), rest()])).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;

  async function rest() {
    // Servers ordered and paid from the wallet, as the operator API's `"charge": true` does.
    const order = (label: string, productId: string, osTemplate: string) => {
      const now = timeline.wait(60);
      return orderServer(
        prisma,
        app.provider,
        accountId,
        { label, productId, os: 'linux', osTemplate },
        now,
        (tx, s, monthlyUsdCents) => chargeServerOrder(tx, accountId, s, monthlyUsdCents, now),
      );
    };
    timeline.wait(1800);
    const web = await order('web-1', 'std-2c-4g-50', 'ubuntu-24.04');
    const db = await order('db-1', 'std-4c-8g-100', 'debian-12');
    timeline.wait(180);
    const pool = await createPool(ctx, {
      productId: 'pool-fra1',
      label: 'batch-workers',
      vcpu: 4,
      ram2gb: 4,
      disk100: 2,
      ip16: 1,
    });
    timeline.wait(60);
    await createServerInPool(ctx, pool.id, {
      productId: 'std-2c-4g-50',
      label: 'worker-1',
      os: 'linux',
      osTemplate: 'ubuntu-24.04',
    });
    timeline.wait(app.config.provisionSeconds + 60);
    await runJobs();

    timeline.wait(600);
    await attachAddon(ctx, web.id, 'addon-ipv4-1');
    timeline.wait(120);
    await attachAddon(ctx, db.id, 'addon-backups-daily');
    timeline.wait(1200);
    await createSnapshot(ctx, web.id, {
      name: 'clean-install',
      description: 'Ubuntu 24.04 with nginx, before the first deploy',
    });
    timeline.wait(300);
    await createSnapshot(ctx, db.id, {
      name: 'before-postgres-17',
      description: 'Before upgrading PostgreSQL 16 to 17',
    });

    const site = await orderHosting(
      prisma,
      app.hosting,
      accountId,
      { domain: DEMO_DOMAIN, productId: 'hosting-starter' },
      timeline.wait(1800),
    );
    timeline.wait(HOSTING_PROVISION_SECONDS + 30);
    await runJobs();
    await writeFile(ctx, site.id, '/public_html/index.html', SITE_INDEX);

    // The next day a question to support, answered; an hour ago an invoice for work still to be paid.
    timeline.wait(86_400);
    const ticket = await createTicket(ctx, {
      subject: 'Reverse DNS for the extra address of web-1',
      message:
        "Hello, we added an extra IPv4 address to web-1 for the shop's mail. Can it have a PTR record of mail.acme-demo.com?",
      department: 'technical',
      priority: 'normal',
    });
    await staffReply(
      prisma,
      ticket.id,
      {
        body: 'Hello! You can set it yourself: PUT /v1/servers/{id}/ips/{ip}/ptr with {"hostname":"mail.acme-demo.com"}, or in the dashboard under the server\'s addresses. It is live within a minute.',
      },
      timeline.wait(2700),
    );
    await operatorInvoice(
      prisma,
      accountId,
      { items: [{ description: 'Migration assistance for acme-demo.com, 2 hours', amountUsdCents: 9_000 }] },
      timeline.until(endOfStory),
    );
  }
}

const SITE_INDEX = `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>ACME Demo Shop</title>
<h1>ACME Demo Shop</h1>
<p>Hand-made anvils since 1949. This site lives on the demo account's web hosting.</p>
</html>
`;
