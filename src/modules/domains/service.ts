import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { TenantDb } from '../../db/tenant.ts';
import { ID_PREFIX, newId } from '../../db/ids.ts';
import { isUniqueViolation, type Tx } from '../../db/tx.ts';
import { badRequest, notFound, refusal } from '../../errors.ts';
import { recordEvent } from '../../events/outbox.ts';
import { DEFAULT_NAMESERVERS, registrar } from '../../provider/registrar.ts';
import { paginate, type PageArgs } from '../../core/paging.ts';
import { invoiceView, issueInvoice, onInvoicePaid, payInvoice } from '../billing/invoices.ts';
import { parseDnsName } from './names.ts';
import { z } from 'zod';
import { checkInput, dnsName, normalDnsName } from '../../core/input-schemas.ts';

/**
 * Domains (docs/REFERENCE.md: Domains). The operator registers a domain for an account: the domain is
 * `pending_payment` with an order invoice; when that invoice is paid (wallet, card, online,
 * crypto) the registrar registers it, it turns `active` and `domain.registered` fires.
 */
export const DOMAIN_STATES = ['pending_payment', 'active'] as const;
export const NAMESERVERS_MIN = 2;
export const NAMESERVERS_MAX = 13;
const PERIOD_YEARS_MAX = 10;
/** A registration's length in years (the operator API's `periodYears`). */
const PERIOD_YEARS = z.number().min(1).max(PERIOD_YEARS_MAX);
const DOMAIN_PURPOSE = 'domain_registration';

type DomainRow = NonNullable<Awaited<ReturnType<Tx['domain']['findFirst']>>>;

function domainView(d: DomainRow) {
  return {
    id: d.id,
    domain: d.name,
    status: d.status,
    periodYears: d.periodYears,
    autoRenew: d.autoRenew,
    transferLock: d.transferLock,
    whoisPrivacy: d.whoisPrivacy,
    nameservers: d.nameservers,
    registeredAt: d.registeredAt,
    expiresAt: d.expiresAt,
    createdAt: d.createdAt,
  };
}
export type DomainView = ReturnType<typeof domainView>;

async function findDomain(db: TenantDb | Tx, id: string): Promise<DomainRow> {
  const domain = await db.domain.findFirst({ where: { id } });
  if (!domain) throw notFound('Domain');
  return domain;
}

export async function listDomains(db: TenantDb, args: PageArgs) {
  const page = await paginate(args, ID_PREFIX.domain, (q) => db.domain.findMany({ ...q }));
  return { ...page, data: page.data.map(domainView) };
}

export async function getDomain(db: TenantDb, id: string) {
  return domainView(await findDomain(db, id));
}

/** 2 to 13 host names (docs/REFERENCE.md: Domains), declared on the argument; distinct, checked here. */
export const NAMESERVERS_RULES = z
  .array(dnsName('host'))
  .min(NAMESERVERS_MIN)
  .max(NAMESERVERS_MAX)
  .meta({ itemsNoun: 'host names' });

function parseNameservers(input: unknown): string[] {
  // The operator API orders here without GraphQL's check of the declared rules.
  const list = Array.isArray(input) && input.every((n) => typeof n === 'string') ? input : [];
  checkInput(NAMESERVERS_RULES, list, 'nameservers');
  const names = list.map(normalDnsName);
  if (new Set(names).size !== names.length) throw badRequest('nameservers must not repeat a host name.', 'nameservers');
  return names;
}

export interface DomainUpdate {
  autoRenew?: boolean | null;
  transferLock?: boolean | null;
  nameservers?: string[] | null;
  whoisPrivacy?: boolean | null;
}

export const DOMAIN_PENDING_PAYMENT = refusal(
  409,
  'The domain is not registered yet (status pending_payment: its invoice is open)',
);

/** The settings domainUpdate changes, as `domain.updated` names them. */
const SETTINGS = ['autoRenew', 'transferLock', 'whoisPrivacy', 'nameservers'] as const;

/**
 * Updates auto-renew, transfer lock, nameservers and WHOIS privacy; 409 before the domain is
 * registered. `domain.updated` fires when a setting's value changed.
 */
export async function updateDomain(
  ctx: { db: TenantDb; app: { clock: { now(): Date } } },
  id: string,
  input: DomainUpdate,
) {
  if (
    input.autoRenew == null &&
    input.transferLock == null &&
    input.nameservers == null &&
    input.whoisPrivacy == null
  ) {
    throw badRequest('Send at least one of auto_renew, transfer_lock, nameservers and whois_privacy.');
  }
  const nameservers = input.nameservers == null ? undefined : parseNameservers(input.nameservers);
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT "id" FROM "Domain" WHERE "id" = ${id} FOR UPDATE`;
    const domain = await findDomain(tx, id);
    if (domain.status !== 'active')
      throw DOMAIN_PENDING_PAYMENT.error(
        `${domain.name} is not registered yet (status ${domain.status}); it can be changed once its invoice is paid.`,
      );
    const changes = {
      ...(nameservers ? { nameservers } : {}),
      ...(input.transferLock != null ? { transferLock: input.transferLock } : {}),
      ...(input.whoisPrivacy != null ? { whoisPrivacy: input.whoisPrivacy } : {}),
    };
    if (Object.keys(changes).length) await registrar.update(domain.name, changes, now);
    const updated = await tx.domain.update({
      where: { id },
      data: { ...changes, ...(input.autoRenew != null ? { autoRenew: input.autoRenew } : {}) },
    });
    const changed = SETTINGS.filter((k) => JSON.stringify(domain[k]) !== JSON.stringify(updated[k]));
    // A call that sets what was already set changes nothing, so it records nothing.
    if (changed.length)
      await recordEvent(
        tx,
        domain.accountId,
        'domain.updated',
        {
          domainId: id,
          domain: domain.name,
          changed: [...changed],
          autoRenew: updated.autoRenew,
          transferLock: updated.transferLock,
          whoisPrivacy: updated.whoisPrivacy,
          nameservers: updated.nameservers,
        },
        now,
      );
    return domainView(updated);
  });
}

// ---------------------------------------------------------------- operator registration

/**
 * Operator API: a registration order. Without `charge` the invoice stays open until paid
 * (POST /admin/invoices/:id/pay); with `"charge": true` the wallet pays it at once (400 and
 * nothing ordered when the balance is short). The domain registers when the invoice is paid.
 */
export async function orderDomain(
  prisma: PrismaClient,
  accountId: string,
  body: { domain?: unknown; periodYears?: unknown; charge?: unknown; nameservers?: unknown },
  now: Date,
) {
  const name = parseDnsName(body.domain, 'domain');
  const years = body.periodYears ?? 1;
  if (typeof years !== 'number' || !Number.isInteger(years))
    throw badRequest('periodYears must be an integer.', 'periodYears');
  checkInput(PERIOD_YEARS, years, 'periodYears');
  if (body.charge !== undefined && typeof body.charge !== 'boolean')
    throw badRequest('charge must be true or false.', 'charge');
  const nameservers = body.nameservers === undefined ? DEFAULT_NAMESERVERS : parseNameservers(body.nameservers);
  const price = registrar.priceUsdCents(name);
  if (price === null)
    throw badRequest(`The registrar does not sell .${name.slice(name.lastIndexOf('.') + 1)} domains.`, 'domain');
  try {
    return await prisma.$transaction(async (tx) => {
      const id = newId(ID_PREFIX.domain, now.getTime());
      await tx.domain.create({
        data: { id, accountId, name, status: 'pending_payment', periodYears: years, nameservers, createdAt: now },
      });
      let invoice = await issueInvoice(tx, {
        accountId,
        source: 'order',
        purpose: DOMAIN_PURPOSE,
        reference: id,
        items: [
          {
            description: `Domain registration ${name}, ${years} year${years > 1 ? 's' : ''}`,
            amountUsdCents: price * years,
          },
        ],
        dueAt: now,
        now,
      });
      await tx.domain.update({ where: { id }, data: { invoiceId: invoice.id } });
      if (body.charge === true) invoice = await payInvoice(tx, invoice.id, 'wallet', now);
      return { domain: domainView(await findDomain(tx, id)), invoice: invoiceView(invoice) };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw badRequest(`${name} is already registered.`, 'domain');
    throw err;
  }
}

/** Paying the registration invoice registers the domain: `active`, `domain.registered`. */
onInvoicePaid(DOMAIN_PURPOSE, async (tx, invoice, now) => {
  const domain = await tx.domain.findUnique({ where: { id: invoice.reference ?? '' } });
  if (domain?.status !== 'pending_payment') return;
  const { expiresAt } = await registrar.register(
    {
      domain: domain.name,
      years: domain.periodYears,
      nameservers: domain.nameservers,
      whoisPrivacy: domain.whoisPrivacy,
      transferLock: domain.transferLock,
    },
    now,
  );
  await tx.domain.update({ where: { id: domain.id }, data: { status: 'active', registeredAt: now, expiresAt } });
  await recordEvent(
    tx,
    domain.accountId,
    'domain.registered',
    { domainId: domain.id, domain: domain.name, periodYears: domain.periodYears, expiresAt: expiresAt.toISOString() },
    now,
  );
});

export async function domainsByIds(db: TenantDb, ids: readonly string[]) {
  return (await db.domain.findMany({ where: { id: { in: [...ids] } } })).map(domainView);
}

/**
 * The account's registered domains set to renew automatically whose registration ends by `until`,
 * soonest first, with the registrar's price of one year (the account summary reads it). Yearly
 * renewal itself is not simulated yet (docs/REFERENCE.md: Domains).
 */
export async function domainRenewalsBy(db: TenantDb, until: Date, take: number) {
  const rows = await db.domain.findMany({
    where: { status: 'active', autoRenew: true, expiresAt: { lte: until } },
    orderBy: [{ expiresAt: 'asc' }, { id: 'asc' }],
    take,
    select: { id: true, name: true, expiresAt: true },
  });
  return rows.map((d) => ({
    id: d.id,
    name: d.name,
    expiresAt: d.expiresAt!,
    yearlyUsdCents: registrar.priceUsdCents(d.name),
  }));
}
