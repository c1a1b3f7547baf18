/**
 * `config_key_ignored` (docs/metrics-and-events.md): keys svc does not read in an imposter, its `_svc` block, its
 * stubs, their responses, a response's `_svc` and `is`, and `defaultResponse`. A typo such as
 * `recordrequests` would otherwise be accepted silently and record nothing. Output fields of a
 * detail document (`requests`, `_links`, ...) are known, so posting one back warns about nothing.
 */
import { isObject } from '../model/index.js';

export interface IgnoredKey {
  /** JSON path of the key, e.g. `stubs[0].responses[1].is.statuscode`. */
  path: string;
  message: string;
  stubIndex?: number;
}

const IMPOSTER_KEYS = [
  'port',
  'protocol',
  'name',
  'stubs',
  'defaultResponse',
  'recordRequests',
  'allowCORS',
  'service_name',
  'service_info',
  'key',
  'cert',
  'mutualAuth',
  'rejectUnauthorized',
  'ca',
  'ciphers',
  'host',
  '_svc',
  'numberOfRequests',
  'stubCount',
  'enabled',
  'requests',
  '_links',
];
const IMPOSTER_SVC_KEYS = ['flowState', 'scriptEngine', 'scripts', 'metrics', 'warnings'];
const STUB_KEYS = [
  'id',
  'predicates',
  'responses',
  'scenarioName',
  'requiredScenarioState',
  'required_scenario_state',
  'newScenarioState',
  'new_scenario_state',
  'routePattern',
  'space',
  '_verify',
  '_links',
  'matches',
];
const RESPONSE_KEYS = ['is', 'proxy', 'inject', 'fault', '_svc', '_behaviors', 'behaviors', 'repeat'];
const RESPONSE_SVC_KEYS = ['script', 'fault', 'templated', 'stateOps'];
/** `_proxyResponseTime` is on the `is` of responses a proxy recorded. */
const IS_KEYS = ['statusCode', 'headers', 'body', '_mode', '_proxyResponseTime'];

/** Levenshtein distance, for "did you mean"; names are short. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

function nearest(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const d = distance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function check(value: unknown, known: readonly string[], path: string, out: IgnoredKey[], stubIndex?: number): void {
  if (!isObject(value)) return;
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const at = path === '' ? key : `${path}.${key}`;
    const guess = nearest(key, known);
    out.push({
      path: at,
      message: `'${at}' is not a known key and is ignored${guess === undefined ? '' : ` (did you mean '${guess}'?)`}`,
      ...(stubIndex === undefined ? {} : { stubIndex }),
    });
  }
}

/** A stub's ignored keys, paths relative to the stub (`stubKeyAt` places them): computed once per stub config. */
export function stubIgnoredKeys(stub: Record<string, unknown>): IgnoredKey[] {
  const out: IgnoredKey[] = [];
  check(stub, STUB_KEYS, '', out);
  if (Array.isArray(stub.responses)) {
    stub.responses.forEach((response: unknown, at: number) => {
      const where = `responses[${at}]`;
      check(response, RESPONSE_KEYS, where, out);
      if (!isObject(response)) return;
      check(response._svc, RESPONSE_SVC_KEYS, `${where}._svc`, out);
      check(response.is, IS_KEYS, `${where}.is`, out);
    });
  }
  return out;
}

/** A key of `stubIgnoredKeys` as the stub at `index` of an imposter has it. */
export function stubKeyAt(key: IgnoredKey, index: number): IgnoredKey {
  const path = `stubs[${index}].${key.path}`;
  return { path, message: `'${path}'${key.message.slice(key.path.length + 2)}`, stubIndex: index };
}

/** The ignored keys of an imposter config apart from its stubs. */
export function imposterIgnoredKeys(config: Record<string, unknown>): IgnoredKey[] {
  const out: IgnoredKey[] = [];
  check(config, IMPOSTER_KEYS, '', out);
  check(config._svc, IMPOSTER_SVC_KEYS, '_svc', out);
  check(config.defaultResponse, IS_KEYS, 'defaultResponse', out);
  return out;
}

/** Every ignored key of an imposter config (`stubs` may be given apart, as the manager keeps them). */
export function ignoredConfigKeys(config: Record<string, unknown>, stubs: ReadonlyArray<Record<string, unknown>>): IgnoredKey[] {
  const out = imposterIgnoredKeys(config);
  stubs.forEach((stub, index) => {
    for (const key of stubIgnoredKeys(stub)) out.push(stubKeyAt(key, index));
  });
  return out;
}
