import { randomUUID } from 'node:crypto';
import {
  cloneJson,
  errorEntries,
  errors,
  FLOW_GATE_FIELDS,
  flowGateProblems,
  flowStateProblems,
  isObject,
  MAX_REPEAT,
  repeatedHeaderProblems,
  scriptedReasons,
  stateOpsProblems,
  type ErrorEntry,
} from '../model/index.js';
import { validatePredicates } from '../match/index.js';
import { behaviorProblems, faultBlockErrors, proxyProblems } from '../respond/index.js';
import { scriptSettingsOf, stubScriptProblems, type ScriptBase, type ScriptSettings } from '../script/svc/index.js';

export type Protocol = 'http' | 'https';

/** A validated stub: `config` is the stub exactly as it reads back (id included). */
export interface StubDefinition {
  config: Record<string, unknown>;
  /**
   * The stub as given, when it held null fields that `config` leaves out (mountebank reads them as
   * absent but gives them back: `--compat mountebank` renders them from here).
   */
  given?: Record<string, unknown>;
}

/** A validated imposter config. `config` holds every field as given (stubs excluded), for read-back. */
export interface ImposterDefinition {
  port: number;
  protocol: Protocol;
  config: Record<string, unknown>;
  stubs: StubDefinition[];
  /** `_svc.scriptEngine`, `_svc.scripts` and where `file:` scripts resolve (docs/scripts.md); absent reads as the defaults. */
  scripts?: ScriptSettings;
}

export interface ParseOptions {
  allowInjection: boolean;
  /** The HTTP path generates a UUID for stubs without `id`; files and the C ABI do not. */
  generateIds: boolean;
  /** Where `file:` scripts resolve for an imposter being parsed (default: confined to the working directory). */
  scriptBase?: ScriptBase;
  /** The imposter's script settings, when stubs are parsed for an existing imposter. */
  scripts?: ScriptSettings;
  /** `--scripts-dir` for admin-created imposters: lookup CSV paths must lie under it (absent: any path, as in mountebank). */
  csvRoot?: string;
  /** mountebank 2.9.1 refuses an imposter without `protocol` (docs/imposters.md defaults it to http). */
  requireProtocol?: boolean;
}

const SUPPORTED_PROTOCOLS = new Set<string>(['http', 'https']);
const RESPONSE_TYPES = ['is', 'proxy', 'inject', 'fault'];

function validatePort(port: unknown, errs: ErrorEntry[]): void {
  if (port === undefined || port === null) return;
  const n = typeof port === 'string' && port.trim() !== '' ? Number(port) : port;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 65535) {
    errs.push(errorEntries.badData("invalid value for 'port'"));
  }
}

function hasResponseType(response: Record<string, unknown>): boolean {
  if (RESPONSE_TYPES.some((key) => response[key] !== undefined)) return true;
  const svc = response._svc;
  return isObject(svc) && svc.script !== undefined;
}

function validateRepeat(response: Record<string, unknown>, errs: ErrorEntry[]): void {
  const behaviors = isObject(response._behaviors) ? response._behaviors : undefined;
  for (const [repeat, path] of [
    [response.repeat, 'repeat'],
    [behaviors?.repeat, '_behaviors.repeat'],
  ] as const) {
    if (repeat === undefined) continue;
    const count = typeof repeat === 'number' ? repeat : typeof repeat === 'string' ? parseInt(repeat, 10) : NaN;
    const positive = (typeof repeat === 'number' && Number.isInteger(repeat) && repeat > 0) || (typeof repeat === 'string' && count > 0);
    if (!positive) errs.push(errorEntries.badData('"repeat" field must be an integer greater than 0', response));
    else if (count > MAX_REPEAT) errs.push(errorEntries.badData(`'${path}' must be at most ${MAX_REPEAT}`, response));
  }
}

/**
 * True when a behavior may rewrite the `is` fields before serving (copy/lookup tokens, decorate,
 * shellTransform): mountebank's documented `statusCode: '${code}'` with a copy is then valid.
 */
function rewritesResponse(response: Record<string, unknown>): boolean {
  const passive = new Set(['wait', 'repeat']);
  const entries = [response._behaviors, ...(Array.isArray(response.behaviors) ? response.behaviors : [])];
  return entries.some((entry) => isObject(entry) && Object.keys(entry).some((key) => !passive.has(key)));
}

function isHeaderScalar(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** Header values are written with String(): an object (even one with its own toString) is a 400 here, not a 500 per request. */
function validateHeaderValues(headers: Record<string, unknown>, where: string, source: unknown, errs: ErrorEntry[]): void {
  for (const [name, value] of Object.entries(headers)) {
    if (value === null || isHeaderScalar(value) || (Array.isArray(value) && value.every(isHeaderScalar))) continue;
    errs.push(errorEntries.badData(`'${where}.headers.${name}' must be a string, a number or an array of strings`, source));
  }
}

/** `where` is the JSON path of the `is` object (or `defaultResponse`), for messages. */
function validateIsResponse(is: unknown, response: Record<string, unknown>, errs: ErrorEntry[], where: string): void {
  if (!isObject(is)) {
    errs.push(errorEntries.badData("'is' must be an object", response));
    return;
  }
  // A falsy statusCode (0, '') serves the default one, as in mountebank (`statusCode || default`).
  if (is.statusCode && !rewritesResponse(response)) {
    const code = Number(is.statusCode);
    if (!Number.isInteger(code) || code < 100 || code > 999) {
      errs.push(errorEntries.badData("'statusCode' must be a valid HTTP status code", response));
    }
  }
  if (is.headers !== undefined && !isObject(is.headers)) {
    errs.push(errorEntries.badData("'headers' must be an object", response));
  } else if (isObject(is.headers)) {
    validateHeaderValues(is.headers, where, response, errs);
  }
  if (isObject(is.headers)) {
    for (const message of repeatedHeaderProblems(is.headers, `${where}.headers`)) errs.push(errorEntries.badData(message, response));
  }
}

/** `where` is the stub's JSON path (`stubs[2]`, or `stub` for a single one), for messages. */
function validateStub(stub: unknown, options: ParseOptions, errs: ErrorEntry[], where: string): void {
  if (!isObject(stub)) {
    errs.push(errorEntries.badData('stub must be an object', stub));
    return;
  }
  const responses = stub.responses;
  if (!Array.isArray(responses) || responses.length === 0) {
    errs.push(errorEntries.badData("'responses' must be a non-empty array", stub));
    return;
  }
  if (!options.allowInjection) {
    for (const message of scriptedReasons(stub)) errs.push(errorEntries.invalidInjection(message, stub));
  }
  const before = errs.length;
  for (const [at, response] of responses.entries()) {
    if (!isObject(response)) {
      errs.push(errorEntries.badData('unrecognized response type', response));
      continue;
    }
    for (const problem of behaviorProblems(response, options.csvRoot)) errs.push(errorEntries.badData(problem.message, problem.source));
    validateRepeat(response, errs);
    for (const message of proxyProblems(response)) errs.push(errorEntries.badData(message, stub));
    if (!hasResponseType(response)) {
      errs.push(errorEntries.badData('unrecognized response type', response));
    } else if (response.is !== undefined) {
      validateIsResponse(response.is, response, errs, `${where}.responses[${at}].is`);
    }
    for (const message of faultBlockErrors(response)) errs.push(errorEntries.badData(message, response));
    for (const message of stateOpsProblems(response)) errs.push(errorEntries.badData(message, response));
  }
  if (errs.length > before) return;
  if (stub.predicates !== undefined) {
    if (!Array.isArray(stub.predicates)) {
      errs.push(errorEntries.badData("'predicates' must be an array", stub));
      return;
    }
    const message = validatePredicates(stub.predicates);
    if (message !== null) errs.push(errorEntries.badData(message, stub));
  }
  if (stub.id !== undefined && typeof stub.id !== 'string') {
    errs.push(errorEntries.badData("'id' must be a string", stub));
  }
  if (options.scripts && options.allowInjection) {
    for (const message of stubScriptProblems(stub, options.scripts)) errs.push(errorEntries.badData(message, stub));
  }
  errs.push(...flowGateProblems(stub));
}

function withoutNulls(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null));
}

/**
 * mountebank reads a null optional field as absent, and typed clients serialise unset fields as
 * null: a stub's null `predicates`, and null fields of its responses and their `is`, are dropped.
 */
function withoutNullFields(stub: unknown): unknown {
  if (!isObject(stub)) return stub;
  const out = { ...stub };
  if (out.predicates === null) delete out.predicates;
  for (const key of FLOW_GATE_FIELDS) if (out[key] === null) delete out[key];
  if (Array.isArray(out.responses)) {
    out.responses = out.responses.map((response: unknown) => {
      if (!isObject(response)) return response;
      // A null `repeat` stays, for the same 400 mountebank gives it.
      const kept: Record<string, unknown> = { ...withoutNulls(response), ...(response.repeat === null ? { repeat: null } : {}) };
      if (isObject(kept.is)) kept.is = withoutNulls(kept.is);
      return kept;
    });
  }
  return out;
}

/** True when withoutNullFields drops something from this stub. */
function hasNullFields(stub: unknown): boolean {
  if (!isObject(stub)) return false;
  if (stub.predicates === null || FLOW_GATE_FIELDS.some((key) => stub[key] === null)) return true;
  const responses = Array.isArray(stub.responses) ? stub.responses : [];
  return responses.some(
    (response: unknown) =>
      isObject(response)
      && (Object.entries(response).some(([key, value]) => value === null && key !== 'repeat')
        || (isObject(response.is) && Object.values(response.is).includes(null))),
  );
}

/**
 * The JSON path of what an entry of stub `stub` (at `base`) complains about: the response or predicate
 * at fault when one can be told, else the stub.
 */
function pathInStub(base: string, stub: unknown, entry: ErrorEntry, original: unknown): string {
  const join = (tail: string) => (base === '' ? tail : `${base}.${tail}`);
  if (!isObject(stub)) return base;
  const responses = Array.isArray(stub.responses) ? stub.responses : [];
  const originals = isObject(original) && Array.isArray(original.responses) ? original.responses : [];
  const response = responses.findIndex((r: unknown, j: number) => r === entry.source || originals[j] === entry.source);
  if (response !== -1) return join(`responses[${response}]`);
  if (/predicate/i.test(entry.message) && Array.isArray(stub.predicates)) {
    const predicate = stub.predicates.findIndex((p: unknown) => validatePredicates([p]) !== null);
    if (predicate !== -1) return join(`predicates[${predicate}]`);
  }
  return base;
}

/**
 * Validates stubs (collecting every error, like mountebank) and returns their read-back form. Each
 * error entry carries the JSON `path` of the field at fault, stub `i` being at `stubPath(i)`.
 */
export function parseStubs(
  given: unknown,
  options: ParseOptions,
  /** Whether an id is already used by a stub outside `given` (asked only for ids the new stubs bring). */
  idTaken: (id: string) => boolean = () => false,
  stubPath: (index: number) => string = (i) => `stubs[${i}]`,
): StubDefinition[] {
  if (given === undefined || given === null) return [];
  if (!Array.isArray(given)) throw errors.badData("'stubs' must be an array");
  const stubs = given.map(withoutNullFields);
  const errs: ErrorEntry[] = [];
  for (const [i, stub] of stubs.entries()) {
    const before = errs.length;
    validateStub(stub, options, errs, stubPath(i));
    for (const entry of errs.slice(before)) {
      const path = entry.path ?? pathInStub(stubPath(i), stub, entry, given[i]);
      if (path !== '') entry.path = path;
    }
  }
  const seen = new Set<string>();
  for (const stub of stubs as Array<Record<string, unknown>>) {
    if (typeof stub?.id !== 'string') continue;
    if (seen.has(stub.id) || idTaken(stub.id)) errs.push(errorEntries.badData(`duplicate stub id '${stub.id}'`, stub));
    seen.add(stub.id);
  }
  if (errs.length > 0) throw errors.validation(errs);
  return stubs.map((stub, i) => {
    const config = withId(cloneJson(stub as Record<string, unknown>), options);
    return hasNullFields(given[i]) ? { config, given: cloneJson(given[i] as Record<string, unknown>) } : { config };
  });
}

function withId(stub: Record<string, unknown>, options: ParseOptions): Record<string, unknown> {
  if (stub.id !== undefined || !options.generateIds) return stub;
  return { id: randomUUID(), ...stub };
}

function validateDefaultResponse(value: unknown, errs: ErrorEntry[]): void {
  if (value === undefined) return;
  if (!isObject(value)) {
    errs.push(errorEntries.badData("'defaultResponse' must be an object"));
    return;
  }
  validateIsResponse(value, value, errs, 'defaultResponse');
}

function validateTls(config: Record<string, unknown>, errs: ErrorEntry[]): void {
  for (const key of ['key', 'cert'] as const) {
    if (config[key] !== undefined && typeof config[key] !== 'string') {
      errs.push(errorEntries.badData(`'${key}' must be a PEM string`));
    }
  }
}

/** Validates one imposter config into a definition; throws SvcError(400) listing every problem. */
export function parseImposter(given: unknown, options: ParseOptions): ImposterDefinition {
  if (!isObject(given)) throw errors.badData('imposter must be a JSON object', given);
  // As for stubs (withoutNullFields): null defaultResponse/key/cert, and null defaultResponse fields, are absent.
  const body = { ...given };
  for (const key of ['defaultResponse', 'key', 'cert']) if (body[key] === null) delete body[key];
  if (isObject(body.defaultResponse)) body.defaultResponse = withoutNulls(body.defaultResponse);
  const errs: ErrorEntry[] = [];
  validatePort(body.port, errs);
  const protocol = body.protocol === undefined && !options.requireProtocol ? 'http' : body.protocol;
  if (protocol === undefined) {
    errs.push(errorEntries.badData("'protocol' is a required field"));
  } else if (typeof protocol !== 'string' || !SUPPORTED_PROTOCOLS.has(protocol)) {
    errs.push(errorEntries.badData(`the ${String(protocol)} protocol is not yet supported`));
  }
  validateDefaultResponse(body.defaultResponse, errs);
  validateTls(body, errs);
  for (const message of flowStateProblems(isObject(body._svc) ? body._svc.flowState : undefined)) errs.push(errorEntries.badData(message));
  const scripts = scriptSettingsOf(body, options.scriptBase ?? { dir: process.cwd(), confined: true });
  for (const message of scripts.problems) errs.push(errorEntries.badData(message));
  if (errs.length > 0) throw errors.validation(errs);
  const stubs = parseStubs(body.stubs, { ...options, scripts: scripts.settings });
  const config = cloneJson(body);
  delete config.stubs;
  delete config.requests;
  delete config.numberOfRequests;
  delete config._links;
  // The rest of a detail document posted back (docs/imposters.md outputs) is not config either.
  delete config.stubCount;
  delete config.enabled;
  if (isObject(config._svc) && 'warnings' in config._svc) {
    const { warnings: _output, ...svc } = config._svc;
    if (Object.keys(svc).length > 0) config._svc = svc;
    else delete config._svc;
  }
  config.protocol = protocol;
  const port = body.port === undefined || body.port === null ? 0 : Number(body.port);
  return { port, protocol: protocol as Protocol, config, stubs, scripts: scripts.settings };
}
