// The Node.js versions the project runs on: Node 24 LTS, and 22.15+ (several dependencies,
// graphql-yoga's HTTP layer among them, need 22.15). Mirrors package.json's `engines`, which npm
// only warns about; test/runtime.test.ts keeps the two in agreement.

/** Why this Node version cannot run the server, or undefined when it can. */
export function unsupportedNodeReason(version = process.versions.node) {
  const [major, minor] = version.split('.').map(Number);
  if (major >= 24 || (major === 22 && minor >= 15)) return undefined;
  return `Node.js ${version} is not supported: use Node 24 LTS (22.15 or later also works).`;
}
