/**
 * What each placement's entry point must return (docs/scripts.md table), checked where the script ran.
 */
import { MAX_SCRIPTED_BODY_BYTES, errorText } from '../../model/index.js';
import type { Placement, RunOutcome } from './protocol.js';
import { DelayResult, HttpResult, PassResult, ResetResult, checkedDelay, checkedStatus, resultOf } from './results.js';

const CONSTRUCTORS = 'http(status[, body]), delay(ms), reset(), pass() or nothing';

/** The message of a scripted body over the cap. */
export function bodyTooLarge(bytes?: number): string {
  return `response body ${bytes === undefined ? '' : `of ${bytes} bytes `}over the ${MAX_SCRIPTED_BODY_BYTES}-byte cap`;
}

export function outcomeOf(placement: Placement, value: unknown): RunOutcome {
  switch (placement) {
    case 'respond':
    case 'transform': {
      if (value === null || value === undefined) return { ok: true, result: { kind: 'pass' } };
      const result = resultOf(value);
      if (result?.kind === 'http' && result.body !== null && result.body.length > MAX_SCRIPTED_BODY_BYTES / 3) {
        // Only a body this long can be over the cap in UTF-8 (3 bytes a UTF-16 unit at most).
        const bytes = Buffer.byteLength(result.body);
        if (bytes > MAX_SCRIPTED_BODY_BYTES) return { ok: false, errorType: 'limit', message: bodyTooLarge(bytes) };
      }
      if (result) return { ok: true, result };
      return { ok: false, errorType: 'runtime', message: `${placement}(ctx) must return ${CONSTRUCTORS}` };
    }
    case 'matches':
      if (typeof value === 'boolean') return { ok: true, value };
      return { ok: false, errorType: 'runtime', message: 'matches(ctx) must return a boolean' };
    case 'delay': {
      const ms = value instanceof DelayResult ? value.ms : typeof value === 'bigint' ? Number(value) : value;
      if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) return { ok: true, value: ms };
      return { ok: false, errorType: 'runtime', message: 'delay(ctx) must return a non-negative number of milliseconds' };
    }
  }
}

/** A JavaScript-engine result (JSON, constructors tagged `__svc` by the sandbox prelude) as the Rhai side's classes. */
function fromTagged(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || !('__svc' in value)) return value;
  const tagged = value as Record<string, unknown>;
  switch (tagged.__svc) {
    case 'http': {
      const result = new HttpResult(checkedStatus(tagged.status), tagged.body);
      for (const [name, header] of (tagged.headers as Array<[string, string]>) ?? []) result.header(name, header);
      return result;
    }
    case 'delay':
      return new DelayResult(checkedDelay(tagged.ms));
    case 'reset':
      return new ResetResult();
    default:
      return new PassResult();
  }
}

export function jsOutcomeOf(placement: Placement, value: unknown): RunOutcome {
  try {
    return outcomeOf(placement, fromTagged(value));
  } catch (err) {
    return { ok: false, errorType: 'runtime', message: errorText(err) };
  }
}
