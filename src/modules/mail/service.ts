import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { TenantDb } from '../../db/tenant.ts';
import { isUniqueViolation, type Tx } from '../../db/tx.ts';
import { badRequest, notFound } from '../../errors.ts';
import type { Quote } from '../billing/quotes.ts';
import { recordEvent } from '../../events/outbox.ts';
import { mailBackend } from '../../provider/mail.ts';
import { z } from 'zod';
import { emailAddress, normalDnsName } from '../../core/input-schemas.ts';
import { paginateIntIds, type PageArgs } from '../../core/paging.ts';
import { hashPassword } from '../auth/password.ts';
import { requireDomainControl } from '../domains/ownership.ts';

/** Limits of email hosting (docs/REFERENCE.md: Email hosting). */
const MAX_MAIL_DOMAINS = 50;
const MAX_MAILBOXES_PER_DOMAIN = 200;
const MAX_ALIASES_PER_DOMAIN = 200;
export const QUOTA_MIN_MB = 100;
export const QUOTA_MAX_MB = 51_200;
export const QUOTA_DEFAULT_MB = 1024;
const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 128;

export interface MailContext {
  db: TenantDb;
  principal: { accountId: string } | null;
  app: { clock: { now(): Date }; prisma: PrismaClient };
}

/** The declared rules of the mail arguments (schema.ts spreads them; checked before a resolver runs). */
export const MAIL_RULES = {
  // Letters, digits and . _ - + ; no dot at either end or twice in a row; 1–64 characters; stored lowercased.
  localPart: z
    .string()
    .trim()
    .regex(
      /^(?!\.)(?!.*\.\.)[A-Za-z0-9._+-]{1,64}(?<!\.)$/,
      '1 to 64 characters of letters, digits, ".", "_", "-" or "+", with no dot at either end or two in a row',
    ),
  address: emailAddress(),
  password: z.string().min(PASSWORD_MIN).max(PASSWORD_MAX),
};

/** An address as stored: trimmed, lowercased, the domain's trailing dot dropped (its form is MAIL_RULES.address). */
function normalAddress(input: string): string {
  const text = input.trim();
  const at = text.lastIndexOf('@');
  return `${text.slice(0, at).toLowerCase()}@${normalDnsName(text.slice(at + 1))}`;
}

// ---------------------------------------------------------------- views

type DomainRow = { id: number; domain: string; createdAt: Date; _count?: { mailboxes: number; aliases: number } };
export function mailDomainView(d: DomainRow) {
  return {
    id: d.id,
    domain: d.domain,
    status: 'active',
    mailboxCount: d._count?.mailboxes ?? 0,
    aliasCount: d._count?.aliases ?? 0,
    createdAt: d.createdAt,
  };
}
type MailboxRow = {
  id: number;
  domainId: number;
  localPart: string;
  address: string;
  quotaMb: number;
  passwordChangedAt: Date;
  createdAt: Date;
};
export function mailboxView(m: MailboxRow) {
  return {
    id: m.id,
    domainId: m.domainId,
    localPart: m.localPart,
    address: m.address,
    quotaMb: m.quotaMb,
    usedMb: 0,
    passwordChangedAt: m.passwordChangedAt,
    createdAt: m.createdAt,
  };
}
type AliasRow = {
  id: number;
  domainId: number;
  sourceLocal: string;
  source: string;
  destination: string;
  createdAt: Date;
};
export function aliasView(a: AliasRow) {
  return {
    id: a.id,
    domainId: a.domainId,
    sourceLocal: a.sourceLocal,
    source: a.source,
    destination: a.destination,
    createdAt: a.createdAt,
  };
}

const COUNTS = { _count: { select: { mailboxes: true, aliases: true } } };

// ---------------------------------------------------------------- domains

export async function listMailDomains(db: TenantDb, args: PageArgs) {
  const page = await paginateIntIds(args, (q) => db.mailDomain.findMany({ ...q, include: COUNTS }));
  return { ...page, data: page.data.map(mailDomainView) };
}

/**
 * What deleting a mail domain, mailbox or alias loses, named (MCP asks a person with it): 404 for
 * one that is not the account's, as the deletion would answer.
 */
export async function quoteMailLoss(db: TenantDb, what: 'domain' | 'mailbox' | 'alias', id: number): Promise<Quote> {
  let message: string;
  if (what === 'domain') {
    const domain = await findMailDomain(db, id);
    message = `Disable mail for ${domain.domain}: its mailboxes, all their mail and its aliases are deleted permanently.`;
  } else if (what === 'mailbox') {
    const mailbox = await db.mailbox.findFirst({ where: { id }, select: { address: true } });
    if (!mailbox) throw notFound('Mailbox');
    message = `Delete mailbox ${mailbox.address} and all of its mail, permanently.`;
  } else {
    const alias = await db.mailAlias.findFirst({ where: { id }, select: { source: true, destination: true } });
    if (!alias) throw notFound('Alias');
    message = `Delete mail alias ${alias.source}: mail to it is no longer forwarded to ${alias.destination}.`;
  }
  return { message, terms: { message } };
}

async function findMailDomain(db: TenantDb, id: number) {
  const domain = await db.mailDomain.findFirst({ where: { id }, include: COUNTS });
  if (!domain) throw notFound('Mail domain');
  return domain;
}

/**
 * Enables email hosting for a domain: the backend creates it and its DKIM key. A domain not
 * registered in this account needs its ownership TXT record first (domains/ownership.ts); 400
 * when it is hosted already, here or (told only to whoever proved control) by another account.
 */
export async function enableMailDomain(ctx: MailContext, input: { domain: string }) {
  const domain = normalDnsName(input.domain);
  const now = ctx.app.clock.now();
  if ((await ctx.db.mailDomain.count()) >= MAX_MAIL_DOMAINS)
    throw badRequest(`An account hosts mail for at most ${MAX_MAIL_DOMAINS} domains.`, 'domain');
  if (await ctx.db.mailDomain.findFirst({ where: { domain } }))
    throw badRequest(`Email hosting is already enabled for ${domain}.`, 'domain');
  await requireDomainControl(ctx.app.prisma, ctx.principal!.accountId, domain, 'Email hosting');
  const { dkimSelector, dkimPublicKey } = await mailBackend.enableDomain(domain);
  try {
    return await ctx.db.$transaction(async (tx) => {
      const row = await tx.mailDomain.create({
        data: { accountId: ctx.principal!.accountId, domain, dkimSelector, dkimPublicKey, createdAt: now },
        include: COUNTS,
      });
      await recordEvent(tx, row.accountId, 'mail.domain.enabled', { mailDomainId: row.id, domain }, now);
      return mailDomainView(row);
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw badRequest(
        `${domain} is already hosted for email by another account; it must be removed there first.`,
        'domain',
      );
    throw err;
  }
}

/** Disables email hosting: the domain, every mailbox (with its mail) and every alias are removed. */
export async function disableMailDomain(ctx: MailContext, id: number) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT "id" FROM "MailDomain" WHERE "id" = ${id} FOR UPDATE`;
    const domain = await tx.mailDomain.findFirst({ where: { id } });
    if (!domain) throw notFound('Mail domain');
    const { count: mailboxes } = await tx.mailbox.deleteMany({ where: { domainId: id } });
    const { count: aliases } = await tx.mailAlias.deleteMany({ where: { domainId: id } });
    await tx.mailDomain.delete({ where: { id } });
    await mailBackend.disableDomain(domain.domain);
    await recordEvent(
      tx,
      domain.accountId,
      'mail.domain.disabled',
      { mailDomainId: id, domain: domain.domain, mailboxesRemoved: mailboxes, aliasesRemoved: aliases },
      now,
    );
    return { id, domain: domain.domain, deleted: true, mailboxesRemoved: mailboxes, aliasesRemoved: aliases };
  });
}

// ---------------------------------------------------------------- mailboxes

/** Every mailbox of the account, or of one of its domains. */
export async function listMailboxes(db: TenantDb, args: PageArgs, domainId?: number) {
  if (domainId !== undefined) await findMailDomain(db, domainId);
  const page = await paginateIntIds(args, (q) =>
    db.mailbox.findMany({ ...q, where: { ...q.where, ...(domainId === undefined ? {} : { domainId }) } }),
  );
  return { ...page, data: page.data.map(mailboxView) };
}

export async function createMailbox(
  ctx: MailContext,
  input: { domainId: number; localPart: string; password: string; quotaMb?: number | null },
) {
  const localPart = input.localPart.trim().toLowerCase();
  const quotaMb = input.quotaMb ?? QUOTA_DEFAULT_MB;
  const domain = await ctx.db.mailDomain.findFirst({ where: { id: input.domainId } });
  if (!domain)
    throw badRequest(
      `domain_id ${input.domainId} is not one of your mail domains; see GET /mail/domains.`,
      'domain_id',
    );
  const address = `${localPart}@${domain.domain}`;
  const passwordHash = await hashPassword(input.password);
  const now = ctx.app.clock.now();
  try {
    return await ctx.db.$transaction(async (tx) => {
      if ((await tx.mailbox.count({ where: { domainId: domain.id } })) >= MAX_MAILBOXES_PER_DOMAIN)
        throw badRequest(`A mail domain holds at most ${MAX_MAILBOXES_PER_DOMAIN} mailboxes.`, 'domain_id');
      if (await tx.mailbox.findFirst({ where: { address } }))
        throw badRequest(`The mailbox ${address} already exists.`, 'local_part');
      if (await tx.mailAlias.findFirst({ where: { source: address } }))
        throw badRequest(`${address} is already an alias; delete the alias first.`, 'local_part');
      const row = await tx.mailbox.create({
        data: {
          accountId: domain.accountId,
          domainId: domain.id,
          localPart,
          address,
          passwordHash,
          quotaMb,
          passwordChangedAt: now,
          createdAt: now,
        },
      });
      await mailBackend.createMailbox(address, passwordHash, quotaMb);
      await recordEvent(
        tx,
        row.accountId,
        'mail.mailbox.created',
        { mailboxId: row.id, mailDomainId: domain.id, address, quotaMb },
        now,
      );
      return mailboxView(row);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw badRequest(`The mailbox ${address} already exists.`, 'local_part');
    throw err;
  }
}

/** Locks and loads a mailbox, so a password change and a delete queue behind each other. */
async function lockMailbox(tx: Tx, id: number) {
  await tx.$queryRaw`SELECT "id" FROM "Mailbox" WHERE "id" = ${id} FOR UPDATE`;
  const mailbox = await tx.mailbox.findFirst({ where: { id } });
  if (!mailbox) throw notFound('Mailbox');
  return mailbox;
}

/** A new password (hashed; the event names the mailbox, never the password). */
export async function setMailboxPassword(ctx: MailContext, id: number, input: { password: string }) {
  if (!(await ctx.db.mailbox.findFirst({ where: { id }, select: { id: true } }))) throw notFound('Mailbox');
  const passwordHash = await hashPassword(input.password);
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const mailbox = await lockMailbox(tx, id);
    await mailBackend.setMailboxPassword(mailbox.address, passwordHash);
    await tx.mailbox.update({ where: { id }, data: { passwordHash, passwordChangedAt: now } });
    await recordEvent(
      tx,
      mailbox.accountId,
      'mail.mailbox.password.changed',
      { mailboxId: id, mailDomainId: mailbox.domainId, address: mailbox.address },
      now,
    );
    return mailboxView({ ...mailbox, passwordChangedAt: now });
  });
}

export async function deleteMailbox(ctx: MailContext, id: number) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const mailbox = await lockMailbox(tx, id);
    await tx.mailbox.delete({ where: { id } });
    await mailBackend.deleteMailbox(mailbox.address);
    await recordEvent(
      tx,
      mailbox.accountId,
      'mail.mailbox.deleted',
      { mailboxId: id, mailDomainId: mailbox.domainId, address: mailbox.address },
      now,
    );
    return { id, address: mailbox.address, deleted: true };
  });
}

// ---------------------------------------------------------------- aliases

export async function listAliases(db: TenantDb, domainId: number, args: PageArgs) {
  await findMailDomain(db, domainId);
  const page = await paginateIntIds(args, (q) => db.mailAlias.findMany({ ...q, where: { ...q.where, domainId } }));
  return { ...page, data: page.data.map(aliasView) };
}

/** A forwarding alias source_local@domain → destination (any valid address, not itself). */
export async function createAlias(
  ctx: MailContext,
  input: { domainId: number; sourceLocal: string; destination: string },
) {
  const sourceLocal = input.sourceLocal.trim().toLowerCase();
  const destination = normalAddress(input.destination);
  const domain = await ctx.db.mailDomain.findFirst({ where: { id: input.domainId } });
  if (!domain)
    throw badRequest(
      `domain_id ${input.domainId} is not one of your mail domains; see GET /mail/domains.`,
      'domain_id',
    );
  const source = `${sourceLocal}@${domain.domain}`;
  if (destination === source)
    throw badRequest('destination must differ from the alias address itself (it would loop).', 'destination');
  const now = ctx.app.clock.now();
  try {
    return await ctx.db.$transaction(async (tx) => {
      if ((await tx.mailAlias.count({ where: { domainId: domain.id } })) >= MAX_ALIASES_PER_DOMAIN)
        throw badRequest(`A mail domain holds at most ${MAX_ALIASES_PER_DOMAIN} aliases.`, 'domain_id');
      if (await tx.mailAlias.findFirst({ where: { source } }))
        throw badRequest(`The alias ${source} already exists.`, 'source_local');
      if (await tx.mailbox.findFirst({ where: { address: source } }))
        throw badRequest(`${source} is a mailbox; an alias cannot take its address.`, 'source_local');
      const row = await tx.mailAlias.create({
        data: { accountId: domain.accountId, domainId: domain.id, sourceLocal, source, destination, createdAt: now },
      });
      await mailBackend.createAlias(source, destination);
      await recordEvent(
        tx,
        row.accountId,
        'mail.alias.created',
        { aliasId: row.id, mailDomainId: domain.id, source, destination },
        now,
      );
      return aliasView(row);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw badRequest(`The alias ${source} already exists.`, 'source_local');
    throw err;
  }
}

export async function deleteAlias(ctx: MailContext, id: number) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT "id" FROM "MailAlias" WHERE "id" = ${id} FOR UPDATE`;
    const alias = await tx.mailAlias.findFirst({ where: { id } });
    if (!alias) throw notFound('Alias');
    await tx.mailAlias.delete({ where: { id } });
    await mailBackend.deleteAlias(alias.source);
    await recordEvent(
      tx,
      alias.accountId,
      'mail.alias.deleted',
      { aliasId: id, mailDomainId: alias.domainId, source: alias.source },
      now,
    );
    return { id, source: alias.source, deleted: true };
  });
}

// ---------------------------------------------------------------- the graph's batched reads

const before = (after: string | null | undefined) =>
  after && /^[1-9][0-9]{0,9}$/.test(after) ? { id: { lt: Number(after) } } : {};

export async function mailDomainsByIds(db: TenantDb, ids: readonly number[]) {
  return (await db.mailDomain.findMany({ where: { id: { in: [...ids] } }, include: COUNTS })).map(mailDomainView);
}

export async function mailboxesOfDomains(db: TenantDb, domainIds: readonly number[], after?: string | null) {
  return (
    await db.mailbox.findMany({
      where: { domainId: { in: [...domainIds] }, ...before(after) },
      orderBy: { id: 'desc' },
    })
  ).map(mailboxView);
}

export async function aliasesOfDomains(db: TenantDb, domainIds: readonly number[], after?: string | null) {
  return (
    await db.mailAlias.findMany({
      where: { domainId: { in: [...domainIds] }, ...before(after) },
      orderBy: { id: 'desc' },
    })
  ).map(aliasView);
}
