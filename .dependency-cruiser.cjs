// The house's layers (DESIGN.md): transports → schema → services (modules) → data (db) and
// provider; events at the bottom; egress (the one outbound-connection policy) below them all,
// importing no layer; core (input rules, paging: src/core) imports no layer either, and every
// layer may use it. Data flows down, events flow back up through the stream, so no file imports
// a layer above its own, and nothing imports in a circle. Checked by test/spine/layers.test.ts.
// The area manifests (src/modules/<area>/manifest.ts and their one list, src/modules/areas.ts)
// are data every layer reads: they sit below every layer, beside core, and import only core.
const MANIFESTS = '^src/modules/([^/]+/manifest|areas)[.]ts$';
const layer = (name, below) => ({
  name: `${name}-imports-only-below`,
  severity: 'error',
  comment: `src/${name} may import only ${below.join(', ')} (and shared top-level files)`,
  from: { path: `^src/${name}/` },
  to: {
    path: '^src/(http|mcp|dashboard|schema|modules|provider|db|events|egress|cluster|core)/',
    pathNot: [`^src/(${[name, ...below].join('|')})/`, MANIFESTS],
  },
});

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: { path: '^src/' }, to: { circular: true } },
    {
      name: 'manifests-are-data',
      severity: 'error',
      comment: 'an area manifest (or the list of them) imports only src/core and other manifests: every layer reads it',
      from: { path: MANIFESTS },
      to: { pathNot: ['^src/core/', MANIFESTS] },
    },
    layer('egress', []),
    layer('core', []),
    {
      // Services and every other module file but the Pothos bindings (schema.ts, *.schema.ts,
      // graph.ts) never load Pothos, directly or through anything they import: rules, paging and
      // transactions work without the GraphQL schema (the operator API, jobs, the CLI use them).
      name: 'services-never-load-pothos',
      severity: 'error',
      comment:
        'a module file other than schema.ts, *.schema.ts or graph.ts reaches @pothos/* or src/schema/builder.ts (use src/core/ for input rules and paging)',
      from: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/[^/]+/(schema|[^/]+[.]schema|graph)[.]ts$' },
      to: { path: ['^node_modules/@pothos/', '^src/schema/builder[.]ts$'], reachable: true },
    },
    layer('db', ['core', 'generated']),
    layer('events', ['core', 'db', 'generated']),
    layer('provider', ['core', 'db', 'events', 'egress', 'generated']),
    layer('modules', ['core', 'provider', 'db', 'events', 'egress', 'schema', 'generated']),
    layer('schema', ['core', 'modules', 'provider', 'db', 'events', 'egress', 'generated']),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
