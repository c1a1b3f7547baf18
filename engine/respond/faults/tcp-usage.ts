import { isObject } from '../../model/index.js';

function respondsWithTcpFault(response: unknown): boolean {
  if (!isObject(response)) return false;
  if (response.fault !== undefined) return true;
  const svc = response._svc;
  return isObject(svc) && isObject(svc.fault) && svc.fault.tcp !== undefined;
}

/**
 * docs/cli.md rule 3: an imposter with any TCP fault (`_svc.fault.tcp` or a top-level `fault`
 * response) is served over HTTP/1 only, where the fault can end the one connection it names.
 */
export function stubsUseTcpFault(stubs: ReadonlyArray<Record<string, unknown>>): boolean {
  return stubs.some((stub) => Array.isArray(stub.responses) && stub.responses.some(respondsWithTcpFault));
}
