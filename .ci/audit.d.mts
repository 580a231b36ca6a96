export function newFindings(report: unknown, allowlist: { advisories?: { url: string }[] }): string[];
