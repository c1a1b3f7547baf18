import { performance } from 'node:perf_hooks';
import { stringify as stringifyQuery } from 'node:querystring';
import { copyContainers, MAX_SCRIPTED_BODY_BYTES, PatternTimeout, plainRequest, statusOf } from '../model/index.js';
import { compileResponse, type CompiledResponse } from './compile-response.js';
import {
  type ResolveContext,
  type ResponseOutcome,
  prepareResponse,
  type IsFields,
  errorResponse,
  answerOf,
  ResetRequested,
  runScript,
  ScriptFailure,
} from './shared/index.js';
import { applyFaultBlock } from './faults/index.js';
import { BehaviorError, behaviorScriptsOf, injectedPredicates, runBehaviors, type BehaviorContext, type ResponseFields } from './behaviors/index.js';
import {
  answeredByOwnRecording,
  callUpstream,
  proxiedRequest,
  ProxyError,
  proxyPredicates,
  recordProxyResponse,
  type ProxyObserver,
  type ProxyRecorder,
} from './proxy/index.js';
import { runInject } from './inject-response.js';

const TEXT = [['Content-Type', 'text/plain']] as Array<[string, string]>;

function unsupported(type: string): ResponseOutcome {
  return { kind: 'http', response: errorResponse('unsupported_response', `response type '${type}' is not supported by this build`) };
}

/**
 * Turns a stub response into an outcome: the response type first (docs/responses.md), then behaviors
 * (docs/behaviors.md), then the `_svc.fault` block (docs/faults.md). Static `is` responses never get here:
 * the imposter writes their prepared bytes directly.
 */
export async function resolveResponse(compiled: CompiledResponse, ctx: ResolveContext & ServingContext): Promise<ResponseOutcome> {
  const started = compiled.type === 'proxy' ? performance.now() : 0;
  const base = await responseOf(compiled, ctx);
  const { outcome, faultApplied } = await applyFaultBlock(base, compiled, ctx);
  if (compiled.type === 'proxy') ctx.proxyObserver?.onProxy(ctx.request.method, faultApplied, performance.now() - started);
  return outcome;
}

/** What proxies and behaviors need beyond ResolveContext; each is optional so other callers stay valid. */
export interface ServingContext {
  /** The request target as sent (proxies forward it unchanged). */
  url?: string;
  /** Where proxies record (the imposter's stubs, or an engine thread's link to them). */
  recorder?: ProxyRecorder;
  log?: (message: string) => void;
  proxyObserver?: ProxyObserver;
}

function behaviorContext(ctx: ResolveContext & ServingContext, requestJson: () => Record<string, unknown>): BehaviorContext {
  return {
    request: ctx.request,
    requestJson,
    port: ctx.imposter.port,
    defaultHeaders: ctx.imposter.defaults?.headers,
    scripts: behaviorScriptsOf(ctx.imposter.scripts, ctx.imposter.port),
    ...(ctx.imposter.svc ? { svc: { scripts: ctx.imposter.svc, ruleId: ctx.stubId ?? `${ctx.imposter.port}:${ctx.stubIndex}` } } : {}),
    log: ctx.log ?? (() => undefined),
  };
}

function served(fields: ResponseFields, ctx: ResolveContext): ResponseOutcome {
  return { kind: 'http', response: prepareResponse(fields as IsFields, ctx.imposter.defaults) };
}

/** A failed behavior or upstream call: 500 with the error envelope (mountebank answers 500 as well). */
function failed(err: BehaviorError | ProxyError): ResponseOutcome {
  return { kind: 'http', response: errorResponse(err.type, err.message, { status: 500 }) };
}

/** A response a script or behavior built: capped like a request body (docs/errors.md envelope past it). */
function servedCapped(fields: ResponseFields, ctx: ResolveContext): ResponseOutcome {
  const response = prepareResponse(fields as IsFields, ctx.imposter.defaults);
  const { length } = response.body;
  if (length <= MAX_SCRIPTED_BODY_BYTES) return { kind: 'http', response };
  return { kind: 'http', response: errorResponse('response_too_large', `response body of ${length} bytes over the ${MAX_SCRIPTED_BODY_BYTES}-byte cap`) };
}

/** A response object (an `is` copy, an injected result) with the response's behaviors applied, then served. */
async function behaved(compiled: CompiledResponse, fields: ResponseFields, ctx: ResolveContext & ServingContext): Promise<ResponseOutcome> {
  if (!compiled.behaviors) return servedCapped(fields, ctx);
  let plain: Record<string, unknown> | undefined;
  return servedCapped(
    await runBehaviors(
      compiled.behaviors,
      fields,
      behaviorContext(ctx, () => (plain ??= plainRequest(ctx.request))),
    ),
    ctx,
  );
}

/**
 * An `is` response whose behaviors only wait: after them it is the static response, already prepared
 * when its stub was compiled (and its header list's encoded block kept by the writer), so a request
 * neither copies nor prepares nor encodes it again. No wait reads or changes the response.
 */
async function waited(compiled: CompiledResponse, ctx: ResolveContext & ServingContext): Promise<ResponseOutcome> {
  let plain: Record<string, unknown> | undefined;
  await runBehaviors(
    compiled.behaviors!,
    compiled.config.is as ResponseFields,
    behaviorContext(ctx, () => (plain ??= plainRequest(ctx.request))),
  );
  return { kind: 'http', response: compiled.prepared! };
}

/** Forward, run the proxy response's behaviors on the answer, record it (docs/responses.md), serve it. */
async function proxied(compiled: CompiledResponse, ctx: ResolveContext & ServingContext): Promise<ResponseOutcome> {
  const proxy = compiled.proxy!;
  const request = proxiedRequest(proxy, plainRequest(ctx.request));
  const upstream = async (): Promise<ResponseFields> => {
    const url = ctx.url ?? pathWithQuery(ctx.request.path, ctx.request.query);
    const response = await callUpstream(proxy, ctx.request, url, request, ctx.proxyObserver);
    return compiled.behaviors
      ? runBehaviors(
          compiled.behaviors,
          response,
          behaviorContext(ctx, () => request),
        )
      : response;
  };
  const recorder = ctx.recorder;
  if (!recorder || proxy.mode === 'proxyTransparent') return served(await upstream(), ctx);
  const { scripts, port } = ctx.imposter;
  let predicates: Array<Record<string, unknown>>;
  try {
    predicates = await proxyPredicates(proxy, request, (source, json) => injectedPredicates(scripts, port, source, json));
  } catch (err) {
    // mountebank generates them after the upstream answered: the upstream still sees the request.
    await upstream();
    throw err;
  }
  const record = async () => {
    const response = await upstream();
    return { made: response, recorded: await recordProxyResponse(proxy, compiled, recorder, predicates, response) };
  };
  if (proxy.mode === 'proxyAlways' || !(await answeredByOwnRecording(predicates, ctx.request))) return served((await record()).made, ctx);
  const once = await recorder.once(compiled, predicates, record);
  // Replayed as the recorded stub would answer it (its wait / decorate behaviors included).
  if ('replay' in once) return typedResponse(compileResponse(once.replay, ctx.imposter.defaults), ctx);
  return served(once.made, ctx);
}

function pathWithQuery(path: string, query: Record<string, unknown>): string {
  const tail = stringifyQuery(query as Record<string, string>);
  return tail === '' ? path : `${path}?${tail}`;
}

async function responseOf(compiled: CompiledResponse, ctx: ResolveContext & ServingContext): Promise<ResponseOutcome> {
  try {
    return await typedResponse(compiled, ctx);
  } catch (err) {
    if (err instanceof BehaviorError || err instanceof ProxyError) return failed(err);
    if (err instanceof ScriptFailure) return { kind: 'http', response: err.response };
    if (err instanceof PatternTimeout) {
      ctx.log?.(`stub ${ctx.stubId ?? ctx.stubIndex}: ${err.message}; answered with ${statusOf('pattern_timeout')}`);
      return { kind: 'http', response: errorResponse('pattern_timeout', err.message) };
    }
    if (err instanceof ResetRequested) return { kind: 'transport', fault: 'reset' };
    throw err;
  }
}

async function typedResponse(compiled: CompiledResponse, ctx: ResolveContext & ServingContext): Promise<ResponseOutcome> {
  switch (compiled.type) {
    case 'is':
      if (!compiled.behaviors) return { kind: 'http', response: compiled.prepared! };
      if (compiled.behaviors.waitsOnly) return waited(compiled, ctx);
      return behaved(compiled, copyContainers(compiled.config.is) as ResponseFields, ctx);
    case 'proxy':
      return proxied(compiled, ctx);
    case 'inject': {
      const injected = await runInject(compiled, ctx, ctx.log);
      return 'failure' in injected ? injected.failure : behaved(compiled, injected.fields, ctx);
    }
    case 'fault':
      return { kind: 'transport', fault: String(compiled.config.fault) };
    case '_svc':
      return compiled.script && ctx.imposter.svc ? scripted(compiled, ctx) : unsupported(compiled.type);
    default:
      void ctx;
      return unsupported(compiled.type);
  }
}

/** A `_svc.script` response: its result served like an `is` (behaviors included), or passed on. */
async function scripted(compiled: CompiledResponse, ctx: ResolveContext & ServingContext): Promise<ResponseOutcome> {
  const ruleId = ctx.stubId ?? `${ctx.imposter.port}:${ctx.stubIndex}`;
  const answer = await answerOf(await runScript(compiled.script!, ctx.imposter.svc!, { request: ctx.request, ruleId }));
  if ('fields' in answer) return behaved(compiled, answer.fields, ctx);
  if ('reset' in answer) return { kind: 'transport', fault: 'reset' };
  if ('pass' in answer) return { kind: 'pass' };
  return { kind: 'http', response: answer.failure };
}

/** docs/faults.md: an unrecognised fault string is a 500 in plain text. */
export function unknownFault(name: string): ResponseOutcome {
  return { kind: 'http', response: { statusCode: 500, headers: TEXT, body: Buffer.from(`Unknown fault: ${name}`) } };
}
