/**
 * Differential: for every (predicate, request) pair in test/support/match-cases.ts, mountebank 2.9.1 decides
 * hit / miss / error with an imposter [predicate stub, catch-all], and our compiled stub set must
 * decide the same on the request mountebank itself recorded. Rejected predicates (400 on POST)
 * must be rejected by validatePredicates too.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileStubSet, validatePredicates, type MatchContext } from '../../../engine/match/index.js';
import type { MockRequest } from '../../../engine/model/request.js';
import { http, startMountebank, type RunningServer } from '../../support/servers.js';
import { cases, type CaseRequest } from '../../support/match-cases.js';

type Outcome = 'hit' | 'miss' | 'error';

let mb: RunningServer;
let admin = '';

/** mountebank's inject contract: `(source)(config, logger, state)` with the request also spread onto config. */
const ctx: MatchContext = {
  injectPredicate: (source, request) => {
    const copy = JSON.parse(JSON.stringify({ ...request, rawBody: undefined, isBinary: undefined })) as Record<string, unknown>;
    const logger = { debug() {}, info() {}, warn() {}, error() {} };
    const config: Record<string, unknown> = { request: copy, state: {}, logger, ...copy };
    const run = new Function('config', 'logger', 'imposterState', `return (${source})(config, logger, imposterState);`);
    return Boolean(run(config, logger, {}));
  },
};

test.before(async () => {
  mb = await startMountebank({ args: ['--allowInjection'] });
  admin = `http://127.0.0.1:${mb.adminPort}`;
});

test.after(async () => {
  await mb?.stop();
});

function stubsFor(predicate: unknown) {
  return [{ predicates: [predicate], responses: [{ is: { statusCode: 200, body: 'hit' } }] }, { responses: [{ is: { statusCode: 404, body: 'miss' } }] }];
}

function ours(stubs: ReturnType<typeof stubsFor>, request: MockRequest, index: boolean): Outcome {
  try {
    const found = compileStubSet(stubs, { index }).firstMatch(request, ctx);
    assert.type(found, 'number');
    return found === 0 ? 'hit' : 'miss';
  } catch {
    return 'error';
  }
}

function send(port: number, request: CaseRequest) {
  return http(request.method ?? 'GET', `http://127.0.0.1:${port}${request.path}`, { headers: request.headers, body: request.body });
}

for (const matchCase of cases) {
  test(`mountebank agrees: ${matchCase.name}`, async () => {
    const stubs = stubsFor(matchCase.predicate);
    const created = await http('POST', `${admin}/imposters`, {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ protocol: 'http', recordRequests: true, stubs }),
    });
    const validation = validatePredicates([matchCase.predicate]);
    if (created.status === 400) {
      assert.ok(validation !== null, `mountebank rejects, we accept: ${created.body}`);
      return;
    }
    assert.is(created.status, 201, created.body);
    assert.is(validation, null, 'mountebank accepts, we reject');
    const port = (JSON.parse(created.body) as { port: number }).port;
    try {
      const theirs: Outcome[] = [];
      for (const request of matchCase.requests) {
        const res = await send(port, request);
        theirs.push(res.status === 500 ? 'error' : res.body === 'hit' ? 'hit' : 'miss');
      }
      const detail = JSON.parse((await http('GET', `${admin}/imposters/${port}`)).body) as { requests: Record<string, unknown>[] };
      assert.is(detail.requests.length, matchCase.requests.length);
      detail.requests.forEach((recorded, i) => {
        const request = { ...recorded, rawBody: Buffer.from(String(recorded.body ?? '')), isBinary: false } as unknown as MockRequest;
        const label = `${JSON.stringify(matchCase.predicate)} on ${JSON.stringify(matchCase.requests[i])}`;
        assert.is(ours(stubs, request, true), theirs[i], label);
        assert.is(ours(stubs, request, false), theirs[i], `${label} (linear scan)`);
      });
    } finally {
      await http('DELETE', `${admin}/imposters/${port}`);
    }
  });
}

test.run();
