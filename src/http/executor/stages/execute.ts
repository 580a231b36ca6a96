import type { OperationCall } from '../call.ts';

/** The compiled document runs (compile.ts), inside what the stages before it set up (an Idempotency-Key's claim). */
export async function execute(call: OperationCall): Promise<void> {
  const { compiled, context, variables, rootValue } = call;
  const run = () => compiled.run(rootValue, context, variables);
  call.result = await (call.within ? call.within(run) : run());
}
