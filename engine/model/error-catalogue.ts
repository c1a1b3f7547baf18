/**
 * Every docs/errors.md `type` slug svc puts in an error envelope, with the status it answers with and the
 * legacy `code` beside it (frozen: clients branch on both). Envelopes are built from this table only,
 * so a slug typo fails tsc and README's "Errors" table can be checked against it
 * (test/engine/model/error-catalogue.test.ts).
 */
export interface CatalogueEntry {
  /** HTTP status of the answer in the situation `summary` describes. */
  readonly status: number;
  readonly code: string;
  readonly summary: string;
}

export const ERROR_CATALOGUE = {
  // Admin plane: documents and resources.
  bad_data: { status: 400, code: 'bad data', summary: 'invalid imposter, stub, config or field (404 for an out-of-range stub index)' },
  invalid_json: { status: 400, code: 'invalid JSON', summary: 'the body is not JSON' },
  nesting_too_deep: { status: 400, code: 'bad data', summary: 'JSON nested deeper than the limit' },
  port_in_use: { status: 400, code: 'resource conflict', summary: 'an imposter already uses the port' },
  no_such_resource: { status: 404, code: 'no such resource', summary: 'unknown imposter, stub id, flow-state key or front-door target' },
  not_found: { status: 404, code: '404', summary: 'no admin route for the path' },
  unauthorized: { status: 401, code: 'unauthorized', summary: 'admin API key missing or wrong' },
  insufficient_access: { status: 403, code: 'insufficient access', summary: 'the operation needs superuser mode' },
  apply_failed: { status: 500, code: '500', summary: 'bulk replace or reload applied only part of the set (with report)' },
  config_source_unreadable: { status: 500, code: '500', summary: 'reload could not read the config file or data directory' },
  bad_datadir_file: { status: 500, code: '500', summary: 'reload found a data-directory file it cannot load' },
  service_unavailable: { status: 503, code: '503', summary: 'flow store or fleet Redis unavailable, or a data-directory file could not be written or removed' },
  internal_error: { status: 500, code: '500', summary: 'unexpected failure (debug matching, sandbox host, serialisation)' },
  // Both planes: HTTP the server cannot take.
  bad_request: { status: 400, code: '400', summary: 'malformed HTTP request' },
  incomplete_body: { status: 400, code: '400', summary: 'imposter port: request body not read to completion' },
  request_timeout: { status: 408, code: '408', summary: 'request not received in time' },
  payload_too_large: { status: 413, code: '413', summary: 'request body over the size cap' },
  header_too_large: { status: 431, code: '431', summary: 'imposter port: request head over the limit' },
  header_fields_too_large: { status: 431, code: '431', summary: 'admin plane: request head over the limit' },
  request_buffer_full: { status: 503, code: '503', summary: 'request bodies in flight over the server-wide budget' },
  response_buffer_full: { status: 503, code: '503', summary: 'answers not yet read on one HTTP/2 session over its limit' },
  // Imposter ports: answering.
  invalid_response: { status: 500, code: '500', summary: 'the response cannot be written (such as an illegal header value)' },
  unsupported_response: { status: 500, code: '500', summary: 'response type not supported by this build' },
  response_too_large: { status: 500, code: '500', summary: 'a body built by inject, decorate or another behavior over the 64 MiB cap' },
  predicate_error: { status: 500, code: 'bad data', summary: 'a predicate failed while matching a request' },
  pattern_timeout: {
    status: 500,
    code: '500',
    summary: 'a regular expression the linear engine cannot run (`matches`, `except`, copy/lookup regex) overran its time bound',
  },
  flow_state_error: { status: 500, code: '500', summary: '`_svc.stateOps` failed' },
  debug_timeout: { status: 504, code: '504', summary: 'debug matching timed out' },
  invalid_proxy: { status: 500, code: 'invalid proxy', summary: 'proxy target invalid or unreachable' },
  shell_transform_failed: { status: 500, code: 'invalid injection', summary: 'shellTransform command failed or returned invalid JSON' },
  // Scripts and injections.
  invalid_injection: {
    status: 400,
    code: 'invalid injection',
    summary: 'scripted config without injection permission, or an injection that fails (500 from a behavior)',
  },
  invalid_predicate_injection: { status: 400, code: 'invalid predicate injection', summary: 'an injected predicate failed' },
  injection_timeout: { status: 504, code: 'injection timeout', summary: 'a response injection exceeded its deadline' },
  predicate_injection_timeout: { status: 504, code: 'predicate injection timeout', summary: 'a predicate injection exceeded its deadline' },
  script_error: { status: 500, code: '500', summary: '`_svc.script` failed (header `x-svc-script-error: true`)' },
  script_timeout: { status: 504, code: '504', summary: '`_svc.script` exceeded its deadline' },
  // Front door and intercept proxy.
  no_route: { status: 404, code: 'no such resource', summary: 'front door: no route matched (header `x-svc-front-door: no-route`)' },
  invalid_intercept_options: { status: 400, code: 'bad data', summary: 'intercept start: bad option' },
  invalid_intercept_ca: { status: 400, code: 'bad data', summary: 'intercept start: half or invalid CA' },
  intercept_bind_failed: { status: 400, code: 'bad data', summary: 'intercept proxy could not bind its port' },
  forbidden: { status: 403, code: 'insufficient access', summary: 'off-host intercept control without authentication under `--require-admin-auth`' },
  intercept_not_running: { status: 404, code: 'no such resource', summary: 'the intercept proxy is not running' },
  intercept_already_running: { status: 409, code: 'resource conflict', summary: 'the intercept proxy is already running' },
  intercept_rules_full: { status: 429, code: 'too many requests', summary: 'intercept rule store over capacity' },
  truststore_export_failed: { status: 500, code: '500', summary: 'intercept truststore export failed' },
  bad_proxy_request: { status: 400, code: '400', summary: 'intercept proxy: not an absolute-form request or CONNECT' },
  bad_gateway: { status: 502, code: '502', summary: 'intercept proxy: upstream unreachable or tunnel closed' },
  loop_detected: { status: 508, code: '508', summary: 'intercept proxy: request addressed to the proxy itself' },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorSlug = keyof typeof ERROR_CATALOGUE;

export function isErrorSlug(value: string): value is ErrorSlug {
  return Object.hasOwn(ERROR_CATALOGUE, value);
}
