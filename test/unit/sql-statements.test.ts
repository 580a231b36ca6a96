import { describe, expect, it } from 'vitest';
import { sqlStatements } from '../../src/db/schema-engine.ts';

// A migration script runs statement by statement in one transaction (src/db/schema-engine.ts:
// runScript), so it is split where PostgreSQL would end a statement, and nowhere else.
describe('sqlStatements', () => {
  it('splits on semicolons between statements, keeping the comments that lead one', () => {
    expect(
      sqlStatements('-- CreateTable\nCREATE TABLE "a" (id int);\n\n-- CreateIndex\nCREATE INDEX i ON "a"(id);\n'),
    ).toEqual(['-- CreateTable\nCREATE TABLE "a" (id int)', '-- CreateIndex\nCREATE INDEX i ON "a"(id)']);
  });

  it('keeps semicolons inside literals, quoted names, dollar-quoted bodies and comments', () => {
    const script = [
      "INSERT INTO t VALUES ('a;b', 'it''s; fine', E'back\\';slash')",
      'CREATE TABLE "odd;name" ("x;y" int)',
      'CREATE FUNCTION f() RETURNS int AS $$ BEGIN RETURN 1; END; $$ LANGUAGE plpgsql',
      'DO $body$ BEGIN PERFORM 1; END $body$',
      'SELECT 1 /* a; /* nested; */ still; */ + 2 -- trailing; comment\n',
      'SELECT $1::int',
    ];
    expect(sqlStatements(`${script.join(';\n')};`)).toEqual(script.map((s) => s.trim()));
  });

  it('drops pieces with nothing but comments and blanks', () => {
    expect(sqlStatements('-- This is an empty migration.\n;\n /* nothing */ ;')).toEqual([]);
    expect(sqlStatements('SELECT 1; -- done\n')).toEqual(['SELECT 1']);
  });
});
