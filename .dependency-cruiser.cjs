// The house's layers (DESIGN.md): transports → schema → services (modules) → data (db) and
// provider; events at the bottom; egress (the one outbound-connection policy) below them all,
// importing no layer; core (input rules, paging: src/core) imports no layer either, and every
// layer may use it. Data flows down, events flow back up through the stream, so no file imports
// a layer above its own, and nothing imports in a circle. Transports (http, mcp) reach data only
// through the schema and the services; the console (src/dashboard) is a browser app that shares
// only plain data with the server. Checked by test/spine/layers.test.ts.
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
    {
      // The schema calls the services; a service never reaches back into the schema layer (its
      // bindings, metadata, builder): rules and transactions stand without the GraphQL schema.
      // Types only may cross (a resolver context's shape).
      name: 'services-never-import-the-schema',
      severity: 'error',
      comment: 'a module file other than its Pothos bindings (schema.ts, *.schema.ts, graph.ts) imports src/schema/',
      from: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/[^/]+/(schema|[^/]+[.]schema|graph)[.]ts$' },
      to: { path: '^src/schema/', dependencyTypesNot: ['type-only'] },
    },
    {
      // Transports (HTTP and its executor, MCP) reach data only through the schema and the
      // services: no Prisma, tenant client, database driver or provider of their own. Types only
      // may cross.
      name: 'transports-reach-data-through-services',
      severity: 'error',
      comment: 'src/http or src/mcp imports src/db, src/provider or src/generated (call a service instead)',
      from: { path: '^src/(http|mcp)/' },
      to: { path: '^src/(db|provider|generated)/', dependencyTypesNot: ['type-only'] },
    },
    {
      // The console is a browser app: it speaks to the server over HTTP only. It may share the
      // server's plain data (the scope list, the event catalogue, a signature scheme), never
      // reach, directly or through them, a layer that runs on the server.
      name: 'the-console-is-a-browser-app',
      severity: 'error',
      comment: 'src/dashboard (the console, built for the browser) reaches server code',
      from: { path: '^src/dashboard/' },
      to: {
        path: [
          '^src/(http|mcp|schema|db|provider|generated|egress|cluster)/',
          '^src/modules/[^/]+/(service|schema|graph)[.]ts$',
          '^src/(app|app-services|background|config|cli)[.]ts$',
        ],
        reachable: true,
      },
    },
    {
      name: 'no-server-code-imports-the-console',
      severity: 'error',
      comment: 'server code imports src/dashboard (the browser app)',
      from: { path: '^src/', pathNot: '^src/dashboard/' },
      to: { path: '^src/dashboard/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
