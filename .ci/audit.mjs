#!/usr/bin/env node
// Dependency audit (docs/REFERENCE.md: Security → Dependencies): `npm audit --omit=dev`, failing on any
// high or critical advisory of a production dependency that .ci/audit-allowlist.json does not
// list with a reason. When the registry cannot answer audits (some mirrors refuse the bulk
// advisory endpoint with 405), it says so and passes unless AUDIT_REQUIRED=1.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** High and critical advisories of the report that the allowlist does not excuse: `package: title (url)`. */
export function newFindings(report, allowlist) {
  const allowed = new Set((allowlist.advisories ?? []).map((a) => a.url));
  const out = [];
  for (const [name, vuln] of Object.entries(report.vulnerabilities ?? {})) {
    for (const via of vuln.via ?? []) {
      if (typeof via !== 'object') continue; // a dependency path; the advisory is listed under its own package
      if (via.severity !== 'high' && via.severity !== 'critical') continue;
      if (allowed.has(via.url)) continue;
      out.push(`${name}: ${via.severity} ${via.title} (${via.url}), affected ${via.range}`);
    }
  }
  return [...new Set(out)];
}

function main() {
  const allowlist = JSON.parse(fs.readFileSync(path.join(here, 'audit-allowlist.json'), 'utf8'));
  let raw;
  try {
    raw = execFileSync('npm', ['audit', '--omit=dev', '--json'], {
      cwd: path.join(here, '..'),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    raw = err.stdout ?? ''; // npm audit exits non-zero when it finds anything
  }
  let report;
  try {
    report = JSON.parse(raw);
  } catch {
    report = { error: { summary: 'unreadable output' } };
  }
  if (!report.vulnerabilities) {
    const why = report.message ?? report.error?.summary ?? 'no report';
    console.error(`npm audit: the registry did not answer the audit (${why}).`);
    process.exit(process.env.AUDIT_REQUIRED === '1' ? 1 : 0);
  }
  const findings = newFindings(report, allowlist);
  const counts = report.metadata?.vulnerabilities ?? {};
  console.log(`npm audit --omit=dev: ${JSON.stringify(counts)}; allowlisted: ${(allowlist.advisories ?? []).length}`);
  if (findings.length) {
    console.error(`High or critical advisories not in .ci/audit-allowlist.json:\n  ${findings.join('\n  ')}`);
    process.exit(1);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
