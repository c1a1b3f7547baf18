import { errors } from '../model/index.js';
import type { Imposter } from './imposter.js';
import type { SavedRequestsPage, SavedRequestsQuery } from './options.js';
import { clausesMatch, parseClauses } from './recorded-request.js';

/** GET /imposters/{port}/savedRequests (docs/recording-and-verify.md): a page of the journal, filtered by `match`. */
export function savedRequestsPage(imposter: Imposter, query: SavedRequestsQuery): SavedRequestsPage {
  const clauses = parseClauses(query.match ?? []);
  if (typeof clauses === 'string') throw errors.badData(clauses);
  const page = imposter.journal.page(query.since, (r) => clausesMatch(clauses, r, (recorded) => imposter.recordedFlowId(recorded)));
  return { requests: page.entries.map((e) => e.value), nextIndex: page.nextIndex, truncated: page.truncated };
}

/** Drops the recorded requests matching every clause of `match`; all of them when it is empty. */
export function clearRecordedRequests(imposter: Imposter, match: string[]): void {
  const clauses = parseClauses(match);
  if (typeof clauses === 'string') throw errors.badData(clauses);
  if (clauses.length === 0) {
    imposter.journal.clear();
    imposter.numberOfRequests = 0;
  } else {
    const removed = imposter.journal.clear((r) => clausesMatch(clauses, r, (recorded) => imposter.recordedFlowId(recorded)));
    imposter.numberOfRequests = Math.max(0, imposter.numberOfRequests - removed);
  }
}
