import { GraphQLError, locatedError, type ExecutionResult } from 'graphql';
import type { RequestContext } from '../../schema/context.ts';
import type { CompiledDocument } from './compile.ts';

/**
 * One execution of an operation as it passes the operation stages (index.ts): what runs, with
 * which variables, for whom. Every surface builds one: a /v1 route and an MCP tool call for
 * their operation's compiled REST projection, /graphql (HTTP and graphql-ws) and MCP's code
 * mode for the client's document.
 */
export interface OperationCall {
  readonly compiled: CompiledDocument;
  readonly variables: Record<string, unknown>;
  /** What every resolver receives (context.ts): the caller, its account's database, the answer's headers. */
  readonly context: RequestContext;
  readonly rootValue?: unknown;
  /** What the execution runs inside (the Idempotency-Key's claim: a keyed mutation's transactions record their steps). */
  within?: <T>(run: () => Promise<T>) => Promise<T>;
  /** The key's record this execution holds, for the `remember` stage to complete or free. */
  claimed?: { remember(result: ExecutionResult, keep: boolean): Promise<void> };
  /** The answer: set by a stage that refuses (or replays), or by `execute`. */
  result?: ExecutionResult;
  /** Microseconds each stage took, in order. */
  readonly timings: [stage: string, microseconds: number][];
}

/** Every operation stage has this one signature: it reads and sets the call; a refusal sets `result` (or throws). */
type OperationStage = (call: OperationCall) => Promise<void> | void;

export interface NamedOperationStage {
  name: string;
  run: OperationStage;
  /** Runs once the call has its result too (the others are skipped once a stage has answered or refused). */
  finishing?: true;
}

/** A refusal as the result of an execution: nothing ran. */
export function refused(call: OperationCall, error: GraphQLError): void {
  call.result = { errors: [error] };
}

/**
 * Runs the stages in order over one call. A stage that throws settles the call with that error
 * as its result (an ApiError as it is; anything else located, for the surface's masking to
 * classify: 500, or 503 when the database is away).
 */
export async function runOperationStages(
  stages: readonly NamedOperationStage[],
  call: OperationCall,
): Promise<ExecutionResult> {
  for (const stage of stages) {
    if (call.result && !stage.finishing) continue;
    const started = performance.now();
    try {
      await stage.run(call);
    } catch (err) {
      call.result = { errors: [err instanceof GraphQLError ? err : locatedError(err, undefined)] };
    }
    call.timings.push([stage.name, Math.round((performance.now() - started) * 1000)]);
  }
  return call.result ?? { errors: [locatedError(new Error('The operation stages answered nothing.'), undefined)] };
}
