import type { ExecutionResult, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { badRequest } from '../../errors.ts';
import { fallbackVariableMessage, isVariableError, variableProblems } from '../input-errors.ts';

/**
 * Variables refused by GraphQL's input coercion are restated in the API's words (see
 * input-errors.ts): one 400 per refused variable, naming it. At execution, so REST (sofa),
 * GraphQL with variables and MCP tool calls all say the same thing.
 */
export function useInputErrorMessages(): Plugin {
  return {
    onExecute({ args }) {
      return {
        onExecuteDone({ result, setResult }) {
          const errors = (result as ExecutionResult).errors;
          if (!errors?.some(isVariableError)) return;
          // Read now: the REST variables plugin swaps them in at execution.
          const problems = variableProblems(args.schema, args.document, args.operationName, args.variableValues);
          const others = errors.filter((e) => !isVariableError(e));
          const restated = problems.length
            ? problems.map((message) => badRequest(message, message.split(' ', 1)[0]))
            : errors.filter(isVariableError).map((e: GraphQLError) => badRequest(fallbackVariableMessage(e.message)));
          setResult({ ...(result as ExecutionResult), errors: [...restated, ...others] });
        },
      };
    },
  };
}
