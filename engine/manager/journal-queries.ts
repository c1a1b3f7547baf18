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

/** Drops the recorded requests matching every clause of `match`; all of them when it is empty (in a fleet, on every node). */
export async function clearRecordedRequests(imposter: Imposter, match: string[]): Promise<void> {
  const clauses = parseClauses(match);
  if (typeof clauses === 'string') throw errors.badData(clauses);
  await imposter.clearRecords(clauses.length === 0 ? undefined : (r) => clausesMatch(clauses, r, (recorded) => imposter.recordedFlowId(recorded)));
}
