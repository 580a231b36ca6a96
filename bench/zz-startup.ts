const t0 = performance.now();
const { startApp } = await import('../src/app.ts');
const { loadConfig } = await import('../src/config.ts');
const t1 = performance.now();
const r = await startApp(loadConfig({}, { port: 0, dataDir: process.argv[2], seedDemo: true, logLevel: 'info' }), { logStream: { write: (l: string) => process.stderr.write(`${Math.round(performance.now() - t0)} ${JSON.parse(l).msg}\n`) } });
const t2 = performance.now();
console.log(`import ${Math.round(t1 - t0)} ms, startApp ${Math.round(t2 - t1)} ms, rss ${Math.round(process.memoryUsage().rss / 1e6)} MB`);
await r.stop();
process.exit(0);
