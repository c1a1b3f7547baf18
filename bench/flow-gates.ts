/**
 * What matching rule 5 (spaces, scenario states) costs per request, without the network: CPU time of
 * `Imposter.handle()` with a fake sink, rounds interleaved so drift hits every cell alike.
 *   static   — one static `is` stub (no gates: the path every plain imposter takes)
 *   space    — the same stub behind a space stub of another flow (gated, no store access)
 *   scenario — the same stub behind a scenario stub (gated, in-memory state read per request)
 * Run: `node --import tsx bench/flow-gates.ts`
 * Env: BENCH_ROUNDS (default 9), BENCH_PER_ROUND (default 200000); medians printed.
 */
import { benchCells } from './in-process-cells.js';

const served = { responses: [{ is: { statusCode: 200, body: 'ok' } }] };
const cells: Record<string, unknown[]> = {
  static: [served],
  space: [{ space: 'someone-else', ...served }, served],
  scenario: [{ scenarioName: 's', requiredScenarioState: 'Elsewhere', ...served }, served],
};

await benchCells(cells, 200_000);
