/**
 * What `_svc.stateOps` cost per request, without the network: CPU time of `Imposter.handle()` with a
 * fake sink until every response is sent, rounds interleaved so drift hits every cell alike.
 *   static    — one static `is` stub on the noop store (the path every plain imposter takes)
 *   increment — the same stub with `_svc.stateOps: [{op: increment}]` on the in-memory store
 *   set+incr  — two ops (set a JSON value, increment) on the in-memory store
 * Run: `node --import tsx bench/flow-state.ts`
 * Env: BENCH_ROUNDS (default 9), BENCH_PER_ROUND (default 100000); medians printed.
 */
import { benchCells } from './in-process-cells.js';

const is = { is: { statusCode: 200, body: 'ok' } };
const cells: Record<string, unknown[]> = {
  static: [{ responses: [is] }],
  increment: [{ responses: [{ ...is, _svc: { stateOps: [{ op: 'increment', key: 'n' }] } }] }],
  'set+incr': [
    {
      responses: [
        {
          ...is,
          _svc: {
            stateOps: [
              { op: 'set', key: 'last', value: { seen: true } },
              { op: 'increment', key: 'n' },
            ],
          },
        },
      ],
    },
  ],
};

await benchCells(cells, 100_000);
