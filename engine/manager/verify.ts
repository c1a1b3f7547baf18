import { compilePredicate, type CompiledPredicate, type MatchContext } from '../match/index.js';
import type { MockRequest } from '../model/index.js';
import { errorEntries, errors, injectionMessages, isObject, predicatesAreScripted } from '../model/index.js';
import type { Imposter } from './imposter.js';
import { requestOfRecord, type RecordedRequest } from './recorded-request.js';

export interface VerifyResult {
  matched: number;
  total: number;
  requests?: RecordedRequest[];
  closest?: { request: RecordedRequest; failedPredicates: Array<{ predicate: unknown; actual: unknown }> };
}

const FIELDS = ['method', 'path', 'query', 'headers', 'body', 'form', 'requestFrom', 'ip'] as const;

/** The request fields a predicate looks at, as the client sees them in `failedPredicates[].actual`. */
function actualFor(predicate: unknown, record: RecordedRequest): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const visit = (p: unknown): void => {
    if (Array.isArray(p)) {
      p.forEach(visit);
      return;
    }
    if (!isObject(p)) return;
    for (const [key, value] of Object.entries(p)) {
      if (key === 'and' || key === 'or' || key === 'not') {
        visit(value);
        continue;
      }
      if (!isObject(value)) continue;
      for (const field of FIELDS) if (field in value) out[field] = record[field];
    }
  };
  visit(predicate);
  return out;
}

async function passes(predicate: CompiledPredicate, request: MockRequest, context: MatchContext): Promise<boolean> {
  return predicate(request, context);
}

/** POST /imposters/{port}/verify (docs/recording-and-verify.md). */
/** POST /imposters/{port}/verify: the body checked (scripted predicates only where injection is admitted), then verified. */
export function verifyBody(imposter: Imposter, body: unknown, admitsInjection: boolean): Promise<VerifyResult> {
  if (!isObject(body)) throw errors.badData('request body must be a JSON object');
  if (!Array.isArray(body.predicates)) throw errors.badData("'predicates' must be an array");
  if (!admitsInjection && predicatesAreScripted(body.predicates)) {
    throw errors.validation([errorEntries.invalidInjection(injectionMessages.javascript)]);
  }
  return verifyRequests(imposter, body);
}

export async function verifyRequests(imposter: Imposter, body: Record<string, unknown>): Promise<VerifyResult> {
  const predicates = body.predicates as unknown[];
  const compiled = predicates.map((p) => compilePredicate(p));
  const flowId = typeof body.flowId === 'string' ? body.flowId : undefined;
  const records = imposter.journal
    .all()
    .map((e) => e.value)
    .filter((record) => flowId === undefined || flowId === imposter.recordedFlowId(record));
  const matched: RecordedRequest[] = [];
  let closest: { record: RecordedRequest; score: number; failed: number[] } | undefined;
  for (const record of records) {
    const request = requestOfRecord(record);
    const failed: number[] = [];
    for (let i = 0; i < compiled.length; i += 1) {
      if (!(await passes(compiled[i], request, imposter.matchContext))) failed.push(i);
    }
    if (failed.length === 0) {
      matched.push(record);
      continue;
    }
    const score = compiled.length - failed.length;
    // Ties go to the most recent request, so >= while walking oldest to newest.
    if (!closest || score >= closest.score) closest = { record, score, failed };
  }
  const result: VerifyResult = { matched: matched.length, total: records.length };
  if (body.includeRequests === true) result.requests = matched;
  if (body.includeClosest === true && closest) {
    const c = closest;
    result.closest = {
      request: c.record,
      failedPredicates: c.failed.map((i) => ({ predicate: predicates[i], actual: actualFor(predicates[i], c.record) })),
    };
  }
  return result;
}
