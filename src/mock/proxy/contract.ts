// `--validate`: what a call that passed the proxy breaks of the fixtures' contract —
// unknown instance or method, params that do not match, a result or error the method does not
// declare. Pure, over fixtures whose schemas are compiled.
import type { Fixtures } from '../fixture-format/fixture-format.js';
import { bindParams } from '../routes/rpc-methods.js';
import type { RpcCall } from './rpc-exchange.js';

/** One broken rule of the contract. */
export interface ContractProblem {
  instance: string;
  method: string;
  problem: string;
  /** The params as sent. */
  params: unknown;
}

/**
 * JSON-RPC 2.0 §5.1: codes the protocol itself uses (-32700, -32600…-32603, and the rest of
 * -32768…-32100 it reserves); a method need not declare them. -32099…-32000 are "server error"
 * codes an implementation defines for itself — services use them for their own errors (the
 * default fixtures' -32004 `Contact not found`) — so a method with `errors` must list them.
 */
export function isProtocolError(code: number): boolean {
  return code >= -32768 && code <= -32100;
}

/** The problems of the calls of one exchange with `instanceName`. */
export function contractProblems(
  fixtures: Fixtures,
  instanceName: string,
  calls: RpcCall[],
): ContractProblem[] {
  const problems: ContractProblem[] = [];
  const instance = fixtures.instances.get(instanceName);
  for (const call of calls) {
    const report = (problem: string) =>
      problems.push({ instance: instanceName, method: call.method, problem, params: call.params });
    if (call.method.startsWith('rpc.')) continue;
    if (!instance) {
      report('unknown instance');
      continue;
    }
    const method = instance.methods.get(call.method);
    if (!method) {
      report('unknown method');
      continue;
    }
    const bound = bindParams(method, call.params);
    if ('error' in bound) report(`params: ${String(bound.error.data)}`);
    const outcome = call.outcome;
    if (!outcome) continue;
    if ('result' in outcome) {
      const problem = method.result?.check?.(outcome.result, 'result');
      if (problem) report(problem);
    } else if (method.errors && !isProtocolError(outcome.error.code)) {
      const code = outcome.error.code;
      if (!method.errors.some((e) => e.code === code)) report(`error ${code} is not declared`);
    }
  }
  return problems;
}
