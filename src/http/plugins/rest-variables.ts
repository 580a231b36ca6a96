import type { Plugin } from 'graphql-yoga';
import type { RequestContext } from '../../schema/context.ts';

/** REST calls execute with the strictly built variables of http/rest-variables.ts, not sofa's. */
export function useRestVariables(): Plugin<RequestContext> {
  return {
    onExecute({ args }) {
      const vars = (args.contextValue as RequestContext).restVariables;
      if (vars) (args as { variableValues?: Record<string, unknown> }).variableValues = vars;
    },
  };
}
