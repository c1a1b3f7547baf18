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
 */
export const PRELUDE = String.raw`(function (hostLog) {
  'use strict';
  const parse = JSON.parse, stringify = JSON.stringify, assign = Object.assign;
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
    /** The current call's result after its promise jobs ran. */
    result() {
      return resultOf(outcome);
    },
  };
})`;
