import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { proveDomain } from '../helpers/domains.ts';
import { activeHosting, domainName } from '../helpers/hosting.ts';

/**
 * Domain ownership (src/modules/domains/ownership.ts) as the attacks it stops: taking mail or a
 * hosting custom domain for a domain registered to another account, squatting a claim that
 * blocks the real owner, and learning from a refusal which domains other customers use.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

const SCOPES = ['mail:read', 'mail:write', 'hosting:read', 'hosting:write'];

/** A domain registered (paid, active) in the customer's account. */
async function registered(c: Customer, label = 'owned'): Promise<string> {
  const name = domainName(label);
  const r = await app.admin('POST', `/admin/accounts/${c.accountId}/domains`, {
    domain: name,
    periodYears: 1,
    charge: true,
  });
  expect(r.status, r.text).toBe(201);
  expect(r.body.domain.status).toBe('active');
  return name;
}

/** A refusal with the names and the proof value taken out: what it says about the world. */
const shape = (message: string, ...names: string[]) =>
  names.reduce((m, n) => m.replaceAll(n, 'NAME'), message).replace(/cloudhost-verify=[0-9a-f]+/g, 'PROOF');

const enableMail = (c: Customer, domain: string) =>
  app.call('POST', '/v1/mail/domains', { key: c.key, body: { domain } });
const mailRows = (domain: string) => app.running.app.prisma.mailDomain.count({ where: { domain } });

describe('mail for a domain registered to another account', () => {
  it("is refused as any unproven domain is, even with the stranger's own proof published; the owner then enables it at once", async () => {
    const owner = await app.customer({ scopes: SCOPES });
    const stranger = await app.customer({ scopes: SCOPES });
    const domain = await registered(owner);

    const taken = await enableMail(stranger, domain);
    expect(taken.status).toBe(400);
    expect(await mailRows(domain)).toBe(0);
    // The same words as for a name nobody has: nothing says it is registered, or to whom.
    const nobody = domainName('nobody');
    const free = await enableMail(stranger, nobody);
    expect(free.status).toBe(400);
    expect(shape(taken.body.message, domain)).toBe(shape(free.body.message, nobody));
    expect(taken.body.message).not.toMatch(/another account|registered to|already/);

    // A TXT record with the stranger's proof does not beat the registration.
    await proveDomain(app, stranger.accountId, domain);
    expect((await enableMail(stranger, domain)).status).toBe(400);
    expect(await mailRows(domain)).toBe(0);
    // A subdomain of it neither.
    expect((await enableMail(stranger, `mail.${domain}`)).status).toBe(400);

    // The registrant needs no proof, for the domain or under it.
    const mine = await enableMail(owner, domain);
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body).toMatchObject({ domain, status: 'active' });
    expect((await enableMail(owner, `lists.${domain}`)).status).toBe(200);
  });

  it('a domain nobody registered becomes active only after the TXT proof of this account', async () => {
    const c = await app.customer({ scopes: SCOPES });
    const other = await app.customer({ scopes: SCOPES });
    const domain = domainName('proof');
    const refused = await enableMail(c, domain);
    expect(refused.status).toBe(400);
    expect(refused.body.param).toBe('domain');
    const asked = /TXT record "(cloudhost-verify=[0-9a-f]+)"/.exec(refused.body.message)![1];
    // Another account's proof is not this account's.
    await proveDomain(app, other.accountId, domain);
    expect((await enableMail(c, domain)).status).toBe(400);
    expect(await mailRows(domain)).toBe(0);
    // Publishing the very value the refusal asked for is enough.
    expect((await app.admin('PUT', `/admin/dns/${domain}`, { txt: ['v=spf1 -all', asked] })).status).toBe(200);
    const ok = await enableMail(c, domain);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.status).toBe('active');
  });
});

describe('hosting custom domains', () => {
  const put = (c: Customer, id: string, domain: string) =>
    app.call('PUT', `/v1/hosting/${id}/custom-domain`, { key: c.key, body: { domain } });
  const customOf = async (id: string) =>
    app.running.app.prisma.hostingAccount.findUnique({
      where: { id },
      select: { customDomain: true, customDomainStatus: true },
    });

  it("a stranger cannot claim the registrant's domain, and a pending claim of theirs does not block the owner", async () => {
    const owner = await app.customer({ scopes: SCOPES });
    const stranger = await app.customer({ scopes: SCOPES });
    const domain = await registered(owner, 'shop');
    const ownerSite = await activeHosting(app, owner);
    const strangerSite = await activeHosting(app, stranger);

    const refused = await put(stranger, strangerSite, domain);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/needs proof that you control the domain/);
    expect(await customOf(strangerSite)).toEqual({ customDomain: null, customDomainStatus: null });

    // A pending claim left from before proofs were asked for (or proven once, then the domain
    // changed hands) holds the name; the registrant's claim drops it.
    await app.running.app.prisma.hostingAccount.update({
      where: { id: strangerSite },
      data: { customDomain: domain, customDomainStatus: 'pending' },
    });
    const mine = await put(owner, ownerSite, domain);
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.customDomain).toMatchObject({ domain, status: 'pending' });
    expect(await customOf(strangerSite)).toEqual({ customDomain: null, customDomainStatus: null });

    // Nor can the stranger attach it by pointing DNS at their own site.
    await app.running.app.prisma.hostingAccount.update({
      where: { id: strangerSite },
      data: { customDomain: `x.${domain}`, customDomainStatus: 'pending' },
    });
    const strangerIp = (await app.call('GET', `/v1/hosting/${strangerSite}`, { key: stranger.key })).body.ip;
    expect((await app.admin('PUT', `/admin/dns/x.${domain}`, { target: strangerIp })).status).toBe(200);
    const verify = await app.call('POST', `/v1/hosting/${strangerSite}/custom-domain/verify`, { key: stranger.key });
    expect(verify.status).toBe(400);
    expect(verify.body.message).toMatch(/needs proof that you control the domain/);
    expect(await customOf(strangerSite)).toEqual({ customDomain: `x.${domain}`, customDomainStatus: 'pending' });
  });

  it('the refusal does not tell which domains other customers host', async () => {
    const owner = await app.customer({ scopes: SCOPES });
    const stranger = await app.customer({ scopes: SCOPES });
    const primary = domainName('primary');
    await activeHosting(app, owner, { domain: primary });
    const custom = domainName('custom');
    const ownerSite = await activeHosting(app, owner);
    await proveDomain(app, owner.accountId, custom);
    expect((await put(owner, ownerSite, custom)).status).toBe(200);
    const strangerSite = await activeHosting(app, stranger);

    const nobody = domainName('nobody');
    const answers = await Promise.all(
      [primary, custom, nobody].map(async (d) => [d, await put(stranger, strangerSite, d)] as const),
    );
    for (const [d, r] of answers) {
      expect(r.status, d).toBe(400);
      expect(r.body.message, d).not.toMatch(/used|another|already/);
      expect(shape(r.body.message, d)).toBe(shape(answers[2][1].body.message, nobody));
    }
    expect(await customOf(strangerSite)).toEqual({ customDomain: null, customDomainStatus: null });
    expect((await customOf(ownerSite))?.customDomain).toBe(custom);
  });
});
