import type { CompiledResponse } from './compile-response.js';
import type { ResolveContext, ResponseOutcome } from './outcome.js';
import { applyFaultBlock } from './faults/index.js';

const TEXT = [['Content-Type', 'text/plain']] as Array<[string, string]>;
const JSON_TYPE = [['Content-Type', 'application/json']] as Array<[string, string]>;

function unsupported(type: string): ResponseOutcome {
  const body = { errors: [{ code: '500', type: 'unsupported_response', message: `response type '${type}' is not supported by this build` }] };
  return { kind: 'http', response: { statusCode: 500, headers: JSON_TYPE, body: Buffer.from(JSON.stringify(body)) } };
}

/**
 * Turns a stub response into an outcome: the response type first (SPEC §2.3), then behaviors
 * (SPEC §2.5), then the `_svc.fault` block (SPEC §2.6). Static `is` responses never get here:
 * the imposter writes their prepared bytes directly.
 */
export async function resolveResponse(compiled: CompiledResponse, ctx: ResolveContext): Promise<ResponseOutcome> {
  return applyFaultBlock(await responseOf(compiled, ctx), compiled, ctx);
}

async function responseOf(compiled: CompiledResponse, ctx: ResolveContext): Promise<ResponseOutcome> {
  switch (compiled.type) {
    case 'is':
      return { kind: 'http', response: compiled.prepared! };
    case 'fault':
      return { kind: 'transport', fault: String(compiled.config.fault) };
    default:
      void ctx;
      return unsupported(compiled.type);
  }
}

/** SPEC §2.6: an unrecognised fault string is a 500 in plain text. */
export function unknownFault(name: string): ResponseOutcome {
  return { kind: 'http', response: { statusCode: 500, headers: TEXT, body: Buffer.from(`Unknown fault: ${name}`) } };
}
