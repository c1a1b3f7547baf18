/**
 * JavaScript evaluated once in every imposter's QuickJS context. It returns the runners the host
 * calls for each hook, holding that imposter's `state` objects, so state never crosses the sandbox
 * boundary. JSON and Object.assign are captured here, before any user code can replace them.
 *
 * Signatures follow mountebank 2.9.1:
 * - inject:    fn(config, injectState, logger, callback, imposterState), config = {request, state, logger, callback}
 *              plus the request fields copied onto config (the legacy `(request, state, logger, callback)` form);
 *              the result comes from the return value or the callback, whichever is first; a returned
 *              promise is awaited.
 * - predicate: fn(config, logger, imposterState), truthiness of the returned value (not awaited).
 * - decorate:  fn(config, response, logger), config = {request, response, logger, state}; the returned
 *              value, or the response as mutated in place when nothing truthy is returned.
 * - wait:      fn(), the milliseconds to wait.
 * - svc:       `_svc.script` (docs/scripts.md): fn(ctx), where fn wraps the script (host.ts svcFunction); the
 *              result constructors http/delay/reset/pass are globals, and ctx.state methods forward to
 *              the host (hostState), which blocks on the imposter's flow store.
 */
// biome-ignore lint/complexity/noUselessStringRaw: raw, so an escape added to the prelude reaches the sandbox as written.
export const PRELUDE = String.raw`(function (hostLog, hostState) {
  'use strict';
  const parse = JSON.parse, stringify = JSON.stringify, assign = Object.assign;
  const ProxyOf = Proxy, ownKeysOf = Reflect.ownKeys, descriptorOf = Reflect.getOwnPropertyDescriptor;
  const text = (value) => {
    if (typeof value === 'string') return value;
    if (value === undefined) return 'undefined';
    if (typeof value === 'function') return String(value);
    try { return stringify(value); } catch (e) { return String(value); }
  };
  const logger = {};
  for (const level of ['debug', 'info', 'warn', 'error']) {
    logger[level] = function () {
      const args = [];
      for (let i = 0; i < arguments.length; i++) args.push(text(arguments[i]));
      hostLog(level, stringify(args));
    };
  }
  // Scripts written for mountebank (Node) often log through console: it goes to the same log.
  globalThis.console = { log: logger.info, info: logger.info, warn: logger.warn, error: logger.error, debug: logger.debug };
  const injectState = {};
  const imposterState = {};
  // One outcome per call; callbacks and promise reactions left over from an earlier call settle
  // that call's outcome, never the current one.
  let outcome = { settled: true };
  const begin = () => (outcome = { settled: false });
  const settle = (target, value) => {
    if (target.settled) return;
    target.settled = true;
    target.value = value;
  };
  const fail = (target, error) => {
    if (target.settled) return;
    target.settled = true;
    target.failed = true;
    target.error = error;
  };
  const adopt = (target, value) => {
    if (value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function') {
      value.then((v) => settle(target, v), (e) => fail(target, e));
    } else {
      settle(target, value);
    }
  };
  const withRequestFields = (config, request) => {
    if (request.method || request.data) {
      assign(config, request);
    }
    return config;
  };
  /** The result as JSON text once settled; undefined while still pending; throws a rejection. */
  const resultOf = (target) => {
    if (!target.settled) return undefined;
    if (target.failed) throw target.error;
    // '' stands for undefined (and for values JSON has no form for).
    const json = stringify(target.value);
    return json === undefined ? '' : json;
  };
  // _svc.script result constructors (docs/scripts.md); the host reads them by their __svc tag.
  const httpResult = (status, body) => {
    const result = { __svc: 'http', status, headers: [], body: body === undefined ? null : body };
    Object.defineProperty(result, 'header', { value(name, value) { result.headers.push([String(name), String(value)]); return result; } });
    return result;
  };
  globalThis.http = httpResult;
  globalThis.delay = (ms) => ({ __svc: 'delay', ms });
  globalThis.reset = () => ({ __svc: 'reset' });
  globalThis.pass = () => ({ __svc: 'pass' });
  const STATE_METHODS = ['get', 'get_or', 'getOr', 'set', 'exists', 'delete', 'incr', 'incr_by', 'incrBy', 'cas', 'ttl', 'clear'];
  const stateOf = (flowId) => {
    const handle = {};
    for (const method of STATE_METHODS) {
      handle[method] = function () {
        const args = [];
        for (let i = 0; i < arguments.length; i++) args.push(arguments[i]);
        const json = hostState(String(flowId), method, stringify(args));
        return json === '' ? undefined : parse(json);
      };
    }
    return handle;
  };
  const lowerKeys = (headers) => {
    const out = {};
    for (const name of Object.keys(headers || {})) out[name.toLowerCase()] = headers[name];
    return out;
  };
  const withHeaderAndJson = (target, headers, body) => {
    target.headers = headers;
    target.header = (name) => {
      const value = headers[String(name).toLowerCase()];
      return Array.isArray(value) ? (value.length > 0 ? value[0] : null) : value === undefined ? null : value;
    };
    let parsed, isJson, tried = false;
    const json = () => {
      if (!tried) {
        tried = true;
        try { parsed = parse(body); isJson = true; } catch (e) { isJson = false; }
      }
      return isJson;
    };
    Object.defineProperty(target, 'json', { enumerable: true, configurable: true, get() { return json() ? parsed : undefined; } });
    // json is absent when the body is not JSON (docs/scripts.md, as in Rhai), yet parsed only when looked at.
    return new ProxyOf(target, {
      has: (t, key) => (key === 'json' ? json() : key in t),
      ownKeys: (t) => (json() ? ownKeysOf(t) : ownKeysOf(t).filter((key) => key !== 'json')),
      getOwnPropertyDescriptor: (t, key) => (key === 'json' && !json() ? undefined : descriptorOf(t, key)),
    });
  };
  const svcCtx = (request, meta, response) => {
    const req = withHeaderAndJson({ method: request.method, path: request.path, query: request.query, pathParams: request.pathParams, body: request.body }, lowerKeys(request.headers), request.isBinary ? '' : request.body);
    if (request.isBinary !== undefined) req.isBinary = request.isBinary;
    const ctx = { request: req, state: stateOf(meta.flowId), store: { flow: (id) => stateOf(id) }, flowId: meta.flowId, stub: meta.stub, logger };
    if (response) ctx.response = withHeaderAndJson({ status: response.status, body: response.body }, lowerKeys(response.headers), response.body);
    return ctx;
  };
  // Each runner answers at once when the script settled synchronously (the common case), so the
  // host needs one call into the sandbox per request.
  return {
    inject(fn, requestJson) {
      const target = begin();
      const request = parse(requestJson);
      const callback = (value) => adopt(target, value);
      const config = withRequestFields({ request, state: imposterState, logger, callback }, request);
      const value = fn(config, injectState, logger, callback, imposterState);
      if (value !== undefined) adopt(target, value);
      return resultOf(target);
    },
    predicate(fn, requestJson) {
      const target = begin();
      const request = parse(requestJson);
      const config = withRequestFields({ request, state: imposterState, logger }, request);
      settle(target, Boolean(fn(config, logger, imposterState)));
      return resultOf(target);
    },
    decorate(fn, requestJson, responseJson) {
      const target = begin();
      const request = parse(requestJson);
      const response = parse(responseJson);
      const config = withRequestFields({ request, response, logger, state: imposterState }, request);
      adopt(target, fn(config, response, logger) || response);
      return resultOf(target);
    },
    wait(fn) {
      const target = begin();
      settle(target, fn());
      return resultOf(target);
    },
    svc(fn, requestJson, metaJson, responseJson) {
      const target = begin();
      settle(target, fn(svcCtx(parse(requestJson), parse(metaJson), responseJson ? parse(responseJson) : undefined)));
      return resultOf(target);
    },
    /** The current call's result after its promise jobs ran. */
    result() {
      return resultOf(outcome);
    },
  };
})`;
