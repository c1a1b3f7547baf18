/**
 * One file of admin operations with the JSON they answer, run unchanged over every surface (admin HTTP,
 * the embedding API, the C ABI: docs/c-abi.md rule 5, "same manager calls, same JSON"). What a surface
 * legitimately answers differently is written here, in a step's `differs`.
 */
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, http } from '../servers.js';
import type { AdminOp, AdminSurface, Outcome } from './surfaces.js';

export type SurfaceId = 'adminHttp' | 'embed' | 'cAbi' | 'cAbiAdmin';

/** `json`: the answer after normalise(); `error`: the failure (`status` is checked where the surface has one). `ok`: success, answer not compared. */
export type StepExpectation = { json: unknown } | { error: { status: number; message: string } } | { ok: true };

export interface AdminStep {
  do: AdminOp;
  /** Omitted: the step must succeed. */
  expect?: StepExpectation;
  /** What a surface answers instead, and why (SPEC reference). */
  differs?: Partial<Record<SurfaceId, StepExpectation>>;
  /** Targets a port no imposter listens on. */
  unknownPort?: boolean;
}

/** Requests sent to the imposter port (the same way for every surface) between admin steps. */
export interface TrafficStep {
  traffic: Array<{ method: string; path: string; headers?: Record<string, string>; body?: string }>;
}

export interface AdminCase {
  name: string;
  steps: Array<AdminStep | TrafficStep>;
}

/** The placeholders normalise() writes. */
export const PORT = '<port>';
export const UNKNOWN_PORT = '<unknown port>';
export const UUID = '<uuid>';
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const VOLATILE = { requestFrom: '<requestFrom>', ip: '<ip>', timestamp: '<timestamp>', latencyMs: '<latencyMs>' } as const;

/**
 * The only rewriting before comparison: `_links` dropped (the HTTP surfaces' base URLs; the C ABI has
 * none, svc.h); the run's ports (fresh each run) written as PORT and UNKNOWN_PORT wherever they appear,
 * as numbers or inside text; generated stub ids as UUID; and the per-request facts of a recorded request (client address, which
 * also depends on whether the host has IPv6; time; latency) as placeholders.
 */
export function normalise(value: unknown, ports: { port: number; unknown: number }): unknown {
  if (Array.isArray(value)) return value.map((item) => normalise(item, ports));
  if (typeof value === 'number') return value === ports.port ? PORT : value === ports.unknown ? UNKNOWN_PORT : value;
  if (typeof value === 'string') {
    if (UUID_TEXT.test(value)) return UUID;
    return value.replace(new RegExp(`\\b(${ports.port}|${ports.unknown})\\b`, 'g'), (found) => (Number(found) === ports.port ? PORT : UNKNOWN_PORT));
  }
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === '_links') continue;
    out[key] = Object.hasOwn(VOLATILE, key) ? VOLATILE[key as keyof typeof VOLATILE] : normalise(item, ports);
  }
  return out;
}

const IS = (body: string) => ({ is: { body } });
const stub = (id: string, path: string, body = id) => ({ id, predicates: [{ equals: { path } }], responses: [IS(body)] });
const ONE = stub('one', '/one');
const TWO = stub('two', '/two');
const THREE = stub('three', '/three');
const SCENARIO_STUB = { id: 's', predicates: [{ equals: { path: '/pay' } }], scenarioName: 'checkout', requiredScenarioState: 'paid', responses: [IS('paid')] };
const FLOW_STATE = { _svc: { flowState: { backend: 'inmemory' } } };
const INJECT_STUB = { id: 'i', responses: [{ inject: 'function () { return { body: "injected" }; }' }] };
const NO_INJECTION = 'JavaScript injection is not allowed unless svc is run with the --allowInjection flag';

const created = (imposter: Record<string, unknown> = {}): AdminStep => ({ do: { op: 'create', imposter: { protocol: 'http', ...imposter } } });

/** `GET /imposters/{port}` (svc_get_imposter): the detail of an http imposter with these stubs and nothing recorded. */
function detail(stubs: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    protocol: 'http',
    port: PORT,
    numberOfRequests: 0,
    stubCount: stubs.length,
    enabled: true,
    recordRequests: false,
    requests: [],
    stubs,
    _svc: { warnings: [] },
    ...extra,
  };
}

/** The replayable form of the same imposter. */
function replayable(stubs: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { protocol: 'http', port: PORT, recordRequests: false, stubs, ...extra };
}

const readStubs = (stubs: unknown[]): AdminStep => ({ do: { op: 'get', replayable: true }, expect: { json: replayable(stubs) } });

/** A mutation's answer: the HTTP surfaces' document; the C ABI's int functions answer 0 (docs/c-abi.md). */
const answers = (json: unknown): Pick<AdminStep, 'expect' | 'differs'> => ({ expect: { json }, differs: { cAbi: { json: 0 } } });

/** Recorded requests as svc records them from node:http's client (agent: false) on loopback. */
function recordedRequest(method: string, path: string, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    requestFrom: '<requestFrom>',
    method,
    path,
    query: {},
    ip: '<ip>',
    timestamp: '<timestamp>',
    status: 200,
    latencyMs: '<latencyMs>',
    ...extra,
    headers: { Host: `127.0.0.1:${PORT}`, Connection: 'close', ...(extra.headers as object | undefined) },
  };
}

export const ADMIN_CASES: AdminCase[] = [
  {
    name: 'create an imposter, then read its detail',
    steps: [
      {
        ...created({ name: 'orders', recordRequests: true, stubs: [ONE] }),
        ...answers(detail([ONE], { name: 'orders', recordRequests: true })),
        differs: { cAbi: { json: PORT } },
      },
      { do: { op: 'get' }, expect: { json: detail([ONE], { name: 'orders', recordRequests: true }) } },
    ],
  },
  {
    name: 'list the imposters',
    steps: [
      created({ name: 'listed', stubs: [ONE, TWO] }),
      {
        do: { op: 'list' },
        expect: {
          json: { imposters: [{ protocol: 'http', port: PORT, name: 'listed', numberOfRequests: 0, stubCount: 2, enabled: true, recordRequests: false }] },
        },
      },
    ],
  },
  {
    name: 'read an imposter replayable',
    steps: [
      created({ name: 'replay', defaultResponse: { statusCode: 404, body: 'none' }, stubs: [ONE] }),
      { do: { op: 'get', replayable: true }, expect: { json: replayable([ONE], { name: 'replay', defaultResponse: { statusCode: 404, body: 'none' } }) } },
    ],
  },
  {
    name: 'list the imposters replayable',
    steps: [created({ stubs: [ONE] }), { do: { op: 'list', replayable: true }, expect: { json: { imposters: [replayable([ONE])] } } }],
  },
  {
    name: 'add a stub at the end, then read it by index',
    steps: [
      created({ stubs: [ONE] }),
      { do: { op: 'addStub', stub: TWO }, ...answers(detail([ONE, TWO])) },
      { do: { op: 'getStub', ref: { index: 1 } }, expect: { json: TWO } },
    ],
  },
  {
    name: 'add a stub at index 0 shifts the others',
    steps: [created({ stubs: [ONE] }), { do: { op: 'addStub', stub: TWO, index: 0 } }, readStubs([TWO, ONE])],
  },
  {
    name: 'read a stub by id',
    steps: [created({ stubs: [ONE, TWO] }), { do: { op: 'getStub', ref: { id: 'two' } }, expect: { json: TWO } }],
  },
  {
    name: 'replace a stub by index',
    steps: [created({ stubs: [ONE, TWO] }), { do: { op: 'updateStub', ref: { index: 0 }, stub: stub('uno', '/uno') } }, readStubs([stub('uno', '/uno'), TWO])],
  },
  {
    name: 'replace a stub by id keeps its position',
    steps: [
      created({ stubs: [ONE, TWO] }),
      { do: { op: 'updateStub', ref: { id: 'one' }, stub: stub('one', '/one', 'changed') }, ...answers(detail([stub('one', '/one', 'changed'), TWO])) },
      readStubs([stub('one', '/one', 'changed'), TWO]),
    ],
  },
  {
    name: 'delete a stub by index',
    steps: [created({ stubs: [ONE, TWO] }), { do: { op: 'deleteStub', ref: { index: 0 } } }, readStubs([TWO])],
  },
  {
    name: 'delete a stub by id compacts the list',
    steps: [created({ stubs: [ONE, TWO, THREE] }), { do: { op: 'deleteStub', ref: { id: 'two' } } }, readStubs([ONE, THREE])],
  },
  {
    name: 'replace all stubs',
    steps: [created({ stubs: [ONE] }), { do: { op: 'replaceStubs', stubs: [TWO, THREE] }, ...answers(detail([TWO, THREE])) }, readStubs([TWO, THREE])],
  },
  {
    name: 'recorded requests after traffic, with their match outcome',
    steps: [
      created({ recordRequests: true, stubs: [ONE] }),
      {
        traffic: [
          { method: 'GET', path: '/one?x=1' },
          { method: 'POST', path: '/nothing', headers: { 'Content-Type': 'text/plain' }, body: 'hello' },
        ],
      },
      {
        do: { op: 'recorded' },
        expect: {
          json: [
            recordedRequest('GET', '/one', { query: { x: '1' }, matchOutcome: { matched: true, stubIndex: 0, stubId: 'one' } }),
            recordedRequest('POST', '/nothing', {
              headers: { 'Content-Type': 'text/plain', 'Content-Length': '5' },
              body: 'hello',
              matchOutcome: { matched: false, tried: [{ stubIndex: 0, stubId: 'one', why: { reason: 'failedPredicate', predicateIndex: 0 } }] },
            }),
          ],
        },
      },
    ],
  },
  {
    name: 'clearing recorded requests',
    steps: [
      created({ recordRequests: true, stubs: [ONE] }),
      { traffic: [{ method: 'GET', path: '/one' }] },
      { do: { op: 'clearRecorded' } },
      { do: { op: 'recorded' }, expect: { json: [] } },
    ],
  },
  {
    name: 'verify counts matching recorded requests',
    steps: [
      created({ recordRequests: true, stubs: [ONE] }),
      {
        traffic: [
          { method: 'GET', path: '/one' },
          { method: 'GET', path: '/one' },
          { method: 'DELETE', path: '/two' },
        ],
      },
      { do: { op: 'verify', body: { predicates: [{ equals: { method: 'GET', path: '/one' } }] } }, expect: { json: { matched: 2, total: 3 } } },
    ],
  },
  {
    name: 'disable an imposter',
    steps: [
      created({ stubs: [ONE] }),
      { do: { op: 'setEnabled', enabled: false }, ...answers({ message: `imposter ${PORT} disabled` }) },
      {
        do: { op: 'list' },
        expect: { json: { imposters: [{ protocol: 'http', port: PORT, numberOfRequests: 0, stubCount: 1, enabled: false, recordRequests: false }] } },
      },
    ],
  },
  {
    name: 'scenario state: set, then read (default flow: the port)',
    steps: [
      created({ stubs: [SCENARIO_STUB] }),
      { do: { op: 'setScenario', name: 'checkout', body: { state: 'paid' } }, ...answers({ flowId: PORT, name: 'checkout', state: 'paid' }) },
      { do: { op: 'scenarios' }, expect: { json: { flowId: PORT, scenarios: [{ name: 'checkout', state: 'paid' }] } } },
    ],
  },
  {
    name: 'scenario reset for one flow',
    steps: [
      created({ stubs: [SCENARIO_STUB] }),
      { do: { op: 'setScenario', name: 'checkout', body: { state: 'paid', flowId: 'f1' } } },
      { do: { op: 'resetScenarios', flowId: 'f1' }, ...answers({ flowId: 'f1', reset: true }) },
      { do: { op: 'scenarios', flowId: 'f1' }, expect: { json: { flowId: 'f1', scenarios: [{ name: 'checkout', state: 'Started' }] } } },
    ],
  },
  {
    name: 'flow state: put, then get',
    steps: [
      created(FLOW_STATE),
      { do: { op: 'flowPut', flowId: 'f1', key: 'cart', value: { items: [1, 2] } }, ...answers({ flowId: 'f1', key: 'cart', value: { items: [1, 2] } }) },
      {
        do: { op: 'flowGet', flowId: 'f1', key: 'cart' },
        expect: { json: { flowId: 'f1', key: 'cart', value: { items: [1, 2] } } },
        // docs/c-abi.md: svc_flow_state_get adds `found`.
        differs: { cAbi: { json: { found: true, flowId: 'f1', key: 'cart', value: { items: [1, 2] } } } },
      },
    ],
  },
  {
    name: 'flow state: delete, then get',
    steps: [
      created(FLOW_STATE),
      { do: { op: 'flowPut', flowId: 'f1', key: 'cart', value: 3 } },
      { do: { op: 'flowDelete', flowId: 'f1', key: 'cart' }, ...answers({ flowId: 'f1', key: 'cart', deleted: true }) },
      {
        do: { op: 'flowGet', flowId: 'f1', key: 'cart' },
        expect: { error: { status: 404, message: "no flow state key 'cart' in flow 'f1'" } },
        // docs/c-abi.md: an absent key is an answer on the C ABI, not an error.
        differs: { cAbi: { json: { found: false, flowId: 'f1', key: 'cart', value: null } } },
      },
    ],
  },
  {
    name: 'flow state without _svc.flowState does not persist (docs/flow-state.md rule 3)',
    steps: [
      created(),
      { do: { op: 'flowPut', flowId: 'f1', key: 'k', value: 'v' } },
      {
        do: { op: 'flowGet', flowId: 'f1', key: 'k' },
        expect: { error: { status: 404, message: "no flow state key 'k' in flow 'f1'" } },
        differs: { cAbi: { json: { found: false, flowId: 'f1', key: 'k', value: null } } },
      },
    ],
  },
  {
    name: 'delete an imposter',
    steps: [
      created({ stubs: [ONE] }),
      { do: { op: 'deleteImposter' }, ...answers(detail([ONE])) },
      { do: { op: 'list' }, expect: { json: { imposters: [] } } },
      { do: { op: 'get' }, expect: { error: { status: 404, message: `no imposter on port ${PORT}` } } },
    ],
  },
  {
    name: 'error: a body that is not JSON',
    steps: [{ do: { op: 'createRaw', text: '{"protocol": "http", ' }, expect: { error: { status: 400, message: 'Unable to parse body as JSON' } } }],
  },
  {
    name: 'error: an unknown port',
    steps: [{ do: { op: 'get' }, unknownPort: true, expect: { error: { status: 404, message: `no imposter on port ${UNKNOWN_PORT}` } } }],
  },
  {
    name: 'error: an invalid stub leaves the stubs as they were',
    steps: [
      created({ stubs: [ONE] }),
      {
        do: { op: 'addStub', stub: { id: 'bad', responses: [{ is: { statusCode: 'teapot' } }] } },
        expect: { error: { status: 400, message: "'statusCode' must be a valid HTTP status code" } },
      },
      readStubs([ONE]),
    ],
  },
  {
    name: 'error: a stub index out of range',
    steps: [
      created({ stubs: [ONE] }),
      {
        do: { op: 'addStub', stub: TWO, index: 5 },
        expect: { error: { status: 400, message: "'index' must be between 0 and the length of the stubs array" } },
      },
    ],
  },
  {
    name: 'error: an unknown stub id',
    steps: [created({ stubs: [ONE] }), { do: { op: 'getStub', ref: { id: 'nope' } }, expect: { error: { status: 404, message: "no stub with id 'nope'" } } }],
  },
  {
    name: 'error: a scenario state without state',
    steps: [
      created({ stubs: [SCENARIO_STUB] }),
      {
        do: { op: 'setScenario', name: 'checkout', body: { flowId: 'f1' } },
        expect: { error: { status: 400, message: "'state' is required and must be a non-empty string" } },
      },
    ],
  },
  {
    name: 'apply a config: a changed imposter is replaced',
    steps: [
      created({ stubs: [ONE] }),
      {
        do: { op: 'applyConfig', imposters: [{ protocol: 'http', name: 'applied', stubs: [TWO] }] },
        expect: { json: { imposters: [{ protocol: 'http', port: PORT, name: 'applied', numberOfRequests: 0 }] } },
        // docs/c-abi.md: svc_apply_config answers the apply report.
        differs: { cAbi: { json: { created: [], replaced: [PORT], stubPatched: [], deleted: [], unchanged: [], failed: [] } } },
      },
      { do: { op: 'list', replayable: true }, expect: { json: { imposters: [replayable([TWO], { name: 'applied' })] } } },
    ],
  },
  {
    name: 'apply a config: an unchanged imposter is kept',
    steps: [
      created({ stubs: [ONE] }),
      {
        do: { op: 'applyConfig', imposters: [{ protocol: 'http', stubs: [ONE] }] },
        expect: { json: { imposters: [{ protocol: 'http', port: PORT, numberOfRequests: 0 }] } },
        differs: { cAbi: { json: { created: [], replaced: [], stubPatched: [], deleted: [], unchanged: [PORT], failed: [] } } },
      },
    ],
  },
  {
    name: 'error: an invalid config applies nothing',
    steps: [
      created({ stubs: [ONE] }),
      { do: { op: 'applyConfig', imposters: [{ protocol: 'ftp' }] }, expect: { error: { status: 400, message: 'the ftp protocol is not yet supported' } } },
      readStubs([ONE]),
    ],
  },
  {
    name: 'delete every imposter',
    steps: [
      created({ stubs: [ONE] }),
      { do: { op: 'deleteAll' }, ...answers({ imposters: [replayable([ONE])] }) },
      { do: { op: 'list' }, expect: { json: { imposters: [] } } },
    ],
  },
  {
    name: 'stub analysis warnings',
    steps: [
      created({ stubs: [{ id: 'all', responses: [IS('all')] }, ONE] }),
      {
        do: { op: 'warnings' },
        expect: {
          json: [
            { warningType: 'catch_all', stubIndex: 0, message: 'stub 0 has no predicates and matches every request' },
            { warningType: 'catch_all_not_last', stubIndex: 0, message: 'stub 0 matches every request and comes before 1 other stub' },
          ],
        },
      },
    ],
  },
  {
    name: 'spaces: add a stub, list it, tear the space down',
    steps: [
      created({ stubs: [ONE] }),
      {
        do: { op: 'spaceAddStub', flowId: 'tenant-a', stub: stub('sa', '/sa') },
        ...answers({ space: 'tenant-a', stubs: [{ ...stub('sa', '/sa'), space: 'tenant-a' }] }),
      },
      { do: { op: 'spaceStubs', flowId: 'tenant-a' }, expect: { json: { space: 'tenant-a', stubs: [{ ...stub('sa', '/sa'), space: 'tenant-a' }] } } },
      readStubs([{ ...stub('sa', '/sa'), space: 'tenant-a' }, ONE]),
      { do: { op: 'spaceDelete', flowId: 'tenant-a' }, ...answers({ space: 'tenant-a', tornDown: true }) },
      { do: { op: 'spaceStubs', flowId: 'tenant-a' }, expect: { json: { space: 'tenant-a', stubs: [] } } },
      readStubs([ONE]),
    ],
  },
  {
    name: 'error: a space stub sent in the {stub} envelope',
    steps: [
      created({ stubs: [ONE] }),
      {
        do: { op: 'spaceAddStub', flowId: 'tenant-a', stub: { stub: stub('sa', '/sa') } },
        expect: {
          error: {
            status: 400,
            message:
              'the space stubs endpoint takes a bare stub, not the {"stub": ...} envelope of /imposters/{port}/stubs: send the stub\'s fields (predicates, responses, ...) at the top level',
          },
        },
      },
    ],
  },
  {
    name: 'error: duplicate stub ids in a replacement change nothing',
    steps: [
      created({ stubs: [ONE] }),
      { do: { op: 'replaceStubs', stubs: [TWO, TWO] }, expect: { error: { status: 400, message: "duplicate stub id 'two'" } } },
      readStubs([ONE]),
    ],
  },
  {
    name: 'error: replacing an unknown stub id, deleting or reading an index out of range',
    steps: [
      created({ stubs: [ONE] }),
      { do: { op: 'updateStub', ref: { id: 'zzz' }, stub: TWO }, expect: { error: { status: 404, message: "no stub with id 'zzz'" } } },
      // mountebank's wording, shared by every by-index route.
      {
        do: { op: 'deleteStub', ref: { index: 3 } },
        expect: { error: { status: 404, message: "'stubIndex' must be a valid integer, representing the array index position of the stub to replace" } },
      },
      {
        do: { op: 'getStub', ref: { index: 3 } },
        expect: { error: { status: 404, message: "'stubIndex' must be a valid integer, representing the array index position of the stub to replace" } },
      },
      readStubs([ONE]),
    ],
  },
  {
    name: 'error: an unsupported protocol, a port already taken',
    steps: [
      { do: { op: 'create', imposter: { protocol: 'ftp' } }, expect: { error: { status: 400, message: 'the ftp protocol is not yet supported' } } },
      created(),
      { do: { op: 'create', imposter: { protocol: 'http' } }, expect: { error: { status: 400, message: `Port ${PORT} is already in use` } } },
    ],
  },
  {
    name: 'verify with the matching requests and the closest miss',
    steps: [
      created({ recordRequests: true, stubs: [ONE] }),
      {
        traffic: [
          { method: 'GET', path: '/one' },
          { method: 'POST', path: '/two' },
        ],
      },
      {
        do: { op: 'verify', body: { predicates: [{ equals: { method: 'POST', path: '/one' } }], includeRequests: true, includeClosest: true } },
        expect: {
          json: {
            matched: 0,
            total: 2,
            requests: [],
            closest: {
              request: recordedRequest('POST', '/two', {
                headers: { 'Content-Length': '0' },
                matchOutcome: { matched: false, tried: [{ stubIndex: 0, stubId: 'one', why: { reason: 'failedPredicate', predicateIndex: 0 } }] },
              }),
              failedPredicates: [{ predicate: { equals: { method: 'POST', path: '/one' } }, actual: { method: 'POST', path: '/two' } }],
            },
          },
        },
      },
    ],
  },
  {
    name: 'disable, then enable again',
    steps: [
      created({ stubs: [ONE] }),
      { do: { op: 'setEnabled', enabled: false } },
      { do: { op: 'setEnabled', enabled: true }, ...answers({ message: `imposter ${PORT} enabled` }) },
      { do: { op: 'get' }, expect: { json: detail([ONE]) } },
    ],
  },
  {
    name: 'stub ids: creation generates the missing ones, svc_add_stub does not (docs/imposters.md)',
    steps: [
      created({ stubs: [{ responses: [IS('a')] }] }),
      { do: { op: 'addStub', stub: { predicates: [{ equals: { path: '/b' } }], responses: [IS('b')] } } },
      {
        do: { op: 'get', replayable: true },
        expect: {
          json: replayable([
            { id: UUID, responses: [IS('a')] },
            { id: UUID, predicates: [{ equals: { path: '/b' } }], responses: [IS('b')] },
          ]),
        },
        differs: {
          cAbi: {
            json: replayable([
              { id: UUID, responses: [IS('a')] },
              { predicates: [{ equals: { path: '/b' } }], responses: [IS('b')] },
            ]),
          },
        },
      },
    ],
  },
  {
    name: 'injection: the admin planes refuse a scripted imposter without --allowInjection; the C ABI is trusted (docs/c-abi.md)',
    steps: [
      {
        ...created({ stubs: [INJECT_STUB] }),
        expect: { error: { status: 400, message: NO_INJECTION } },
        differs: { cAbi: { ok: true } },
      },
      {
        do: { op: 'get', replayable: true },
        expect: { error: { status: 404, message: `no imposter on port ${PORT}` } },
        differs: { cAbi: { json: replayable([INJECT_STUB]) } },
      },
    ],
  },
  {
    name: 'injection: an inject predicate in verify is gated the same way',
    steps: [
      created({ recordRequests: true }),
      { traffic: [{ method: 'GET', path: '/x' }] },
      {
        do: { op: 'verify', body: { predicates: [{ inject: 'function (request) { return request.path === "/x"; }' }] } },
        expect: { error: { status: 400, message: NO_INJECTION } },
        differs: { cAbi: { json: { matched: 1, total: 1 } } },
      },
    ],
  },
];

function assertStep(outcome: Outcome, expect: StepExpectation, ports: { port: number; unknown: number }, where: string): void {
  if ('error' in expect) {
    assert.ok(!outcome.ok, `${where}: should fail, answered ${JSON.stringify(outcome)}`);
    if (outcome.ok) return;
    assert.is(normalise(outcome.message, ports), expect.error.message, `${where}: error message`);
    if (outcome.status !== undefined) assert.is(outcome.status, expect.error.status, `${where}: status`);
    return;
  }
  assert.ok(outcome.ok, `${where}: failed: ${JSON.stringify(outcome)}`);
  if (!outcome.ok || !('json' in expect)) return;
  assert.equal(normalise(outcome.json, ports), expect.json, `${where}: JSON`);
}

async function sendTraffic(port: number, step: TrafficStep): Promise<void> {
  for (const request of step.traffic) {
    await http(request.method, `http://127.0.0.1:${port}${request.path}`, { headers: request.headers, body: request.body });
  }
}

/** Registers every case on `test`, run over the surface `surface()` returns once the suite has started. */
export function runAdminCases(test: Test, id: SurfaceId, label: string, surface: () => AdminSurface): void {
  for (const c of ADMIN_CASES) {
    test(`${label}: ${c.name}`, async () => {
      const on = surface();
      const [port, unknown] = [await freePort(), await freePort()];
      try {
        for (const [i, step] of c.steps.entries()) {
          if ('traffic' in step) {
            await sendTraffic(port, step);
            continue;
          }
          const outcome = await on.run(step.do, step.unknownPort ? unknown : port);
          const expect = step.differs?.[id] ?? step.expect ?? { ok: true };
          assertStep(outcome, expect, { port, unknown }, `${label} / ${c.name} / step ${i + 1} (${step.do.op})`);
        }
      } finally {
        await on.reset();
      }
    });
  }
}
