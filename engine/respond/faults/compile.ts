import { isObject } from '../../model/index.js';
import { prepareResponse } from '../shared/index.js';
import type { CompiledFaults } from './types.js';

const DEFAULT_ERROR_STATUS = 500;

function probabilityOf(member: Record<string, unknown>): number {
  return typeof member.probability === 'number' ? member.probability : 1;
}

/**
 * Compiles a validated response's `_svc.fault` block (null when there is none). The error
 * response is prepared here, like an `is` response, so firing it costs nothing per request.
 */
export function compileFaultBlock(config: Record<string, unknown>): CompiledFaults | null {
  const svc = config._svc;
  if (!isObject(svc) || !isObject(svc.fault)) return null;
  const { latency, error, tcp } = svc.fault;
  const compiled: CompiledFaults = {};
  if (isObject(latency)) {
    const minMs = Number(latency.ms ?? latency.minMs);
    const maxMs = Number(latency.ms ?? latency.maxMs);
    compiled.latency = { probability: probabilityOf(latency), minMs, maxMs };
  }
  if (typeof tcp === 'string') compiled.tcp = { probability: 1, type: tcp };
  else if (isObject(tcp)) compiled.tcp = { probability: probabilityOf(tcp), type: String(tcp.type) };
  if (isObject(error)) {
    const status = typeof error.status === 'number' ? error.status : DEFAULT_ERROR_STATUS;
    const response = prepareResponse({ statusCode: status, headers: error.headers, body: error.body }, undefined);
    compiled.error = { probability: probabilityOf(error), status, response };
  }
  return compiled;
}
