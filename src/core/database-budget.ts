import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A request's budget of waiting on PostgreSQL. Every statement a request sends spends from it
 * the time it waited for the answer; once it is spent, the request sends no more statements
 * (but a ROLLBACK) and its next one fails as an outage, so the request answers 503 however many
 * statements it would have made. Measured as time waited on the database, not time since the
 * request began, so a request that spends its first minute on a git clone is not cut short.
 * A refused statement was never sent, so a 503 from here never hides a commit.
 */
const REQUEST_DATABASE_BUDGET_MS = 5000;

interface Budget {
  spentMs: number;
  limitMs: number;
}

const budgetScope = new AsyncLocalStorage<Budget>();

/** Runs `fn` (one request's work) with its own database budget. */
export function withDatabaseBudget<T>(fn: () => T, limitMs = REQUEST_DATABASE_BUDGET_MS): T {
  return budgetScope.run({ spentMs: 0, limitMs }, fn);
}

/**
 * Lifts the current request's budget: its answer is a stream (a subscription over SSE) that
 * lives for hours and waits on the database now and then, each statement still within the
 * pool's bound.
 */
export function liftDatabaseBudget(): void {
  const budget = budgetScope.getStore();
  if (budget) budget.limitMs = Number.POSITIVE_INFINITY;
}

/** Runs `fn` outside any request's budget: background work woken from inside a request is not the request's. */
export function outsideDatabaseBudget<T>(fn: () => T): T {
  return budgetScope.exit(fn);
}

/** Refused because the request has waited on the database for its whole budget. */
export class DatabaseBudgetSpent extends Error {
  /** The connection-exception class of SQLSTATE: db/errors.ts counts it as the database being away. */
  readonly code = '08006';
  constructor(limitMs: number) {
    super(`This request waited ${limitMs} ms on the database without an answer; nothing more was sent.`);
  }
}

/**
 * Called by the pool's client before each statement: the read timeout this statement may have
 * (never more than `queryTimeoutMs`, never more than what is left of the request's budget), or
 * a refusal when nothing is left. Outside a request (background work) the pool's own bound holds.
 */
export function admitStatement(text: string, queryTimeoutMs: number): { timeoutMs: number; settle(): void } {
  const budget = budgetScope.getStore();
  if (!budget || /^\s*ROLLBACK\b/i.test(text)) return { timeoutMs: queryTimeoutMs, settle: () => undefined };
  const left = budget.limitMs - budget.spentMs;
  if (left <= 0) throw new DatabaseBudgetSpent(budget.limitMs);
  const started = performance.now();
  const settle = () => {
    budget.spentMs += performance.now() - started;
  };
  return { timeoutMs: Math.max(1, Math.min(queryTimeoutMs, Math.ceil(left))), settle };
}
