import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * The house's layers and no import cycles (.dependency-cruiser.cjs): every file under src/ is
 * cruised with TypeScript's own resolution, type-only imports included.
 */
describe('layers', () => {
  it('src/ has no import cycle and no file imports a layer above its own', () => {
    const run = spawnSync(process.execPath, ['node_modules/dependency-cruiser/bin/dependency-cruise.mjs', 'src', '--output-type', 'json'], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
    });
    expect(run.error).toBeUndefined();
    const result = JSON.parse(run.stdout);
    const violations = result.summary.violations.map((v: { rule: { name: string }; from: string; to: string; cycle?: { name: string }[] }) =>
      `${v.rule.name}: ${v.from} → ${v.cycle?.length ? v.cycle.map((c) => c.name).join(' → ') : v.to}`,
    );
    expect(violations).toEqual([]);
    // It really read the tree (a wrong path or config would cruise nothing and pass).
    expect(result.summary.totalCruised).toBeGreaterThan(150);
  });
});
