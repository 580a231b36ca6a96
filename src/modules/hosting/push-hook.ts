import { createHmac, timingSafeEqual } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { tenantClient } from '../../db/tenant.ts';
import { notFound, unauthorized } from '../../errors.ts';
import { decryptSecret } from '../webhooks/secrets.ts';
import { gitPull } from './git.ts';
import type { HostingContext } from './service.ts';

/**
 * The push-to-deploy receiver, `POST {PUBLIC_BASE_URL}/hooks/git/:hostingId`: a git host calls
 * it after a push, and the site pulls the latest commit. No API credential: the request proves
 * itself with the account's push-to-deploy secret, either as GitHub does
 * (`X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`) or as GitLab does
 * (`X-Gitlab-Token: <secret>`), compared in constant time. An unknown account, or one without
 * push-to-deploy enabled, answers 404 like a bad signature would tell nothing more.
 */
export async function receivePushHook(
  app: HostingContext['app'] & { prisma: PrismaClient },
  hostingId: string,
  rawBody: Buffer,
  headers: { hubSignature?: string | null; gitlabToken?: string | null },
) {
  const row = await app.prisma.hostingGitDeploy.findUnique({ where: { hostingId } }).catch(() => null);
  if (!row?.webhookEnabled || !row.webhookSecretEnc) throw notFound('Push-to-deploy hook');
  const secret = decryptSecret(app.webhookSecretKey, `git:${hostingId}`, row.webhookSecretEnc);
  if (!signedBy(secret, rawBody, headers))
    throw unauthorized('The push-to-deploy signature does not match (X-Hub-Signature-256 or X-Gitlab-Token).');
  const ctx: HostingContext = {
    app,
    principal: { accountId: row.accountId },
    db: tenantClient(app.prisma, row.accountId),
  };
  return gitPull(ctx, hostingId);
}

function signedBy(
  secret: string,
  body: Buffer,
  headers: { hubSignature?: string | null; gitlabToken?: string | null },
): boolean {
  const same = (a: string, b: string) => {
    const x = Buffer.from(a);
    const y = Buffer.from(b);
    return x.length === y.length && timingSafeEqual(x, y);
  };
  if (headers.hubSignature)
    return same(
      headers.hubSignature.toLowerCase(),
      `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    );
  if (headers.gitlabToken) return same(headers.gitlabToken, secret);
  return false;
}
