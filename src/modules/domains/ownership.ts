import { createHash } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { badRequest } from '../../errors.ts';
import { simulatedDnsTxt } from '../../provider/dns.ts';

/**
 * Who may put a domain to use (mail hosting, a hosting custom domain). A domain registered in
 * the account (or under one of its registered domains) may, at once. Any other needs proof: a
 * TXT record at the domain bound to this account and this domain, so one account's proof never
 * counts for another. A domain registered to another account can never be claimed. Every
 * unproven claim gets the same refusal — registered elsewhere, used elsewhere or nobody's — so
 * it tells nothing about other customers.
 */
const OWNERSHIP_TXT_PREFIX = 'cloudhost-verify=';

/** The TXT value that proves `accountId` controls `domain`. */
export function ownershipTxt(accountId: string, domain: string): string {
  return (
    OWNERSHIP_TXT_PREFIX +
    createHash('sha256').update(`domain-ownership\0${accountId}\0${domain}`).digest('hex').slice(0, 32)
  );
}

/** The domain and each parent above the top-level label, most specific first. */
function selfAndParents(domain: string): string[] {
  const labels = domain.split('.');
  return labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
}

export type DomainControl = 'registered' | 'proven';

/**
 * How `accountId` controls `domain` (normalised), or the refusal. `use` starts the refusal
 * ("Email hosting", "A custom domain").
 */
export async function requireDomainControl(
  prisma: PrismaClient,
  accountId: string,
  domain: string,
  use: string,
): Promise<DomainControl> {
  const names = selfAndParents(domain);
  const registered = await prisma.domain.findMany({
    where: { name: { in: names }, status: 'active' },
    select: { name: true, accountId: true },
  });
  const closest = registered.sort((a, b) => b.name.length - a.name.length)[0];
  if (closest?.accountId === accountId) return 'registered';
  const txt = ownershipTxt(accountId, domain);
  if (!closest && (await simulatedDnsTxt.txt(prisma, domain)).includes(txt)) return 'proven';
  throw badRequest(
    `${use} for ${domain} needs proof that you control the domain: publish the TXT record "${txt}" at ${domain} (or register the domain in this account), then try again.`,
    'domain',
  );
}
