// The databases the schema engine migrates, each with the way to run a migration script on it.
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapter } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import type { AdapterClient } from './pglite-fast-client.ts';

/**
 * A connection for the engine, and how to run a migration script on the same database as one
 * simple query (multi-statement, implicitly one transaction), as the native engine does. The
 * adapters' own executeScript cannot be used: pglite-prisma-adapter does not await PGlite's
 * exec(), so a failing migration was recorded as applied; adapter-pg splits the script on every
 * ';' (breaking literals and $$ bodies) and runs the pieces one by one, so a failure left a
 * half-applied migration. The target holds the client it gave the adapter, so it runs the
 * script itself: nothing is read from inside an adapter.
 */
export interface ScriptedConnection {
  adapter: SqlDriverAdapter;
  runScript(script: string): Promise<unknown>;
}

/** A database to migrate: its connections, and throwaway shadow databases for diffs. */
export interface MigrationTarget {
  adapterName: string;
  /** Whether every connection is the same session (PGlite): a session lock is then taken directly. */
  oneSession: boolean;
  connect(): Promise<ScriptedConnection>;
  connectToShadowDb(): Promise<ScriptedConnection>;
}

/**
 * The embedded database `db` (a PGlite instance, or the app's client over one). Shadow
 * databases are fresh in-memory PGlite instances, each closed when its connection is disposed
 * (pglite-prisma-adapter's own shadow is never closed).
 */
export function pgliteTarget(db: PGlite | AdapterClient): MigrationTarget {
  const connection = async (
    client: PGlite | AdapterClient,
    close?: () => Promise<void>,
  ): Promise<ScriptedConnection> => {
    // The app's client is not a PGlite but implements what the adapter calls on it
    // (docs/DESIGN.md: Private members we still rely on).
    const adapter = await new PrismaPGlite(client as PGlite).connect();
    return {
      adapter: close
        ? {
            ...delegate(adapter),
            dispose: async () => {
              await adapter.dispose();
              await close();
            },
          }
        : adapter,
      runScript: (script) => client.exec(script),
    };
  };
  return {
    adapterName: 'pglite-prisma-adapter',
    oneSession: true,
    connect: () => connection(db),
    connectToShadowDb: () => {
      const shadow = new PGlite();
      return connection(shadow, () => shadow.close());
    },
  };
}

/**
 * PostgreSQL at `connectionString`: each connection over a pool of its own, ended when the
 * connection is disposed (which also releases the advisory lock the engine takes and never
 * releases: the native engine relies on its connection closing). Diffs run on PGlite shadows
 * (migrate.ts), so a PostgreSQL shadow database is never asked for.
 */
export function postgresTarget(connectionString: string): MigrationTarget {
  const connect = async (): Promise<ScriptedConnection> => {
    const pool = new pg.Pool({ connectionString });
    const adapter = await new PrismaPg(pool, { disposeExternalPool: true }).connect();
    return { adapter, runScript: (script) => pool.query(script) };
  };
  return {
    adapterName: '@prisma/adapter-pg',
    oneSession: false,
    connect,
    connectToShadowDb: () => Promise.reject(new Error('PostgreSQL targets have no shadow database: diff on PGlite')),
  };
}

/** `adapter`'s interface, every member delegated, for an adapter with one member replaced. */
export function delegate(adapter: SqlDriverAdapter): SqlDriverAdapter {
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (query) => adapter.queryRaw(query),
    executeRaw: (query) => adapter.executeRaw(query),
    executeScript: (script) => adapter.executeScript(script),
    startTransaction: (isolationLevel) => adapter.startTransaction(isolationLevel),
    ...(adapter.getConnectionInfo && { getConnectionInfo: () => adapter.getConnectionInfo!() }),
    dispose: () => adapter.dispose(),
  };
}
