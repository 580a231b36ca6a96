import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { App } from '../../app-services.ts';
import { mintApiKey } from '../auth/service.ts';
import { ALL_SCOPES } from '../../scopes.ts';
import { fillDemoAccount, startDemoStory, type DemoWorld } from './demo-data.ts';
import { createAccount } from './service.ts';

/**
 * First embedded start only: a demo account with a full-scope key and a dashboard password, written to
 * DATA_DIR/demo-credentials.json (mode 0600), holding a realistic history (demo-data.ts). Never with
 * DATABASE_URL.
 */
export async function ensureDemoAccount(app: App, world: DemoWorld): Promise<void> {
  const file = path.join(app.config.dataDir, 'demo-credentials.json');
  if (fs.existsSync(file) || (await app.prisma.account.count()) > 0) return;
  const story = startDemoStory(app);
  const password = randomBytes(12).toString('base64url');
  const account = await createAccount(
    story.prisma,
    { email: 'demo@example.com', name: 'Demo Customer', country: 'DE', password, walletBalanceUsdCents: 50_000 },
    story.timeline.now(),
  );
  const key = await mintApiKey(story.prisma, account.id, { name: 'Demo key (all scopes)', scopes: ALL_SCOPES });
  fs.writeFileSync(
    file,
    `${JSON.stringify({ accountId: account.id, email: account.email, password, apiKey: key.key, scopes: key.scopes }, null, 2)}\n`,
    { mode: 0o600 },
  );
  try {
    await fillDemoAccount(app, account.id, world, story);
  } catch (err) {
    // The account and its key work without the sample data; a failure here must not stop the server.
    app.log.error({ err }, 'filling the demo account failed; it is usable but holds less sample data');
  }
  app.log.info({ file }, 'created the demo account; its API key is in the file');
}
