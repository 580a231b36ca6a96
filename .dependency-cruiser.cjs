// The house's layers (DESIGN.md): transports → schema → services (modules) → data (db) and
// provider; events at the bottom; egress (the one outbound-connection policy) below them all,
// importing no layer. Data flows down, events flow back up through the stream, so
// no file imports a layer above its own, and nothing imports in a circle. Checked by
// test/spine/layers.test.ts.
const layer = (name, below) => ({
  name: `${name}-imports-only-below`,
  severity: 'error',
  comment: `src/${name} may import only ${below.join(', ')} (and shared top-level files)`,
  from: { path: `^src/${name}/` },
  to: { path: '^src/(http|mcp|dashboard|schema|modules|provider|db|events|egress|cluster)/', pathNot: [`^src/(${[name, ...below].join('|')})/`] },
});

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: { path: '^src/' }, to: { circular: true } },
    layer('egress', []),
    layer('db', ['generated']),
    layer('events', ['db', 'generated']),
    layer('provider', ['db', 'events', 'egress', 'generated']),
    layer('modules', ['provider', 'db', 'events', 'egress', 'schema', 'generated']),
    layer('schema', ['modules', 'provider', 'db', 'events', 'egress', 'generated']),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
