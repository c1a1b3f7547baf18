import { cloneJson, isObject } from '../model/index.js';
import type { KeyPair } from '../transport/index.js';
import type { Imposter, LiveStub } from './imposter.js';
import { renderMountebank } from './mountebank-json.js';
import { indentedStub, STUBS_CLOSE, STUBS_OPEN, stubsText } from './stub-text.js';

/** `--compat mountebank`: the admin JSON of mountebank 2.9.1 instead of the spec's (README "mountebank drop-in mode"). */
export type Compat = 'mountebank';

export interface RenderOptions {
  replayable?: boolean;
  removeProxies?: boolean;
  list?: boolean;
  /** Absolute base for `_links` (mountebank uses the admin request's Host); absent renders no `_links` (the C ABI). */
  baseUrl?: string;
  compat?: Compat;
  /** Replayable output that keeps proxy recordings' `_proxyResponseTime`: a fleet's shared form (other nodes must know them as recordings). */
  recordingTimes?: boolean;
}

const LEADING = ['protocol', 'port', 'name'];
const OMITTED_FROM_HEADER = new Set([...LEADING, 'recordRequests', 'stubs', 'requests', 'numberOfRequests', '_links']);

function links(baseUrl: string, port: number): Record<string, unknown> {
  const self = `${baseUrl}/imposters/${port}`;
  return { self: { href: self }, stubs: { href: `${self}/stubs` } };
}

export function stubLinks(baseUrl: string, port: number, index: number): Record<string, unknown> {
  return { self: { href: `${baseUrl}/imposters/${port}/stubs/${index}` } };
}

function header(imposter: Imposter): Record<string, unknown> {
  const out: Record<string, unknown> = { protocol: imposter.protocol, port: imposter.port };
  if (imposter.config.name !== undefined) out.name = imposter.config.name;
  return out;
}

function extraConfig(imposter: Imposter): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(imposter.config)) {
    if (!OMITTED_FROM_HEADER.has(key)) out[key] = cloneJson(value);
  }
  return out;
}

/**
 * What mountebank reports for an https server in the detail and replayable forms: the key and cert
 * in use (`fallback`, the default pair, for a missing one), mutualAuth, rejectUnauthorized, ca, and
 * the cipher list when given.
 */
export function tlsMetadata(config: Record<string, unknown>, fallback: KeyPair | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {
    key: typeof config.key === 'string' ? config.key : fallback?.key,
    cert: typeof config.cert === 'string' ? config.cert : fallback?.cert,
    mutualAuth: Boolean(config.mutualAuth),
    rejectUnauthorized: config.rejectUnauthorized ? cloneJson(config.rejectUnauthorized) : false,
    ca: config.ca ? cloneJson(config.ca) : null,
  };
  if (typeof config.ciphers === 'string') out.ciphers = config.ciphers.toUpperCase();
  return out;
}

function isProxyResponse(response: unknown): boolean {
  return typeof response === 'object' && response !== null && 'proxy' in response;
}

function withoutProxies(stubs: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return stubs
    .map((stub) => ({ ...stub, responses: (stub.responses as unknown[]).filter((r) => !isProxyResponse(r)) }))
    .filter((stub) => (stub.responses as unknown[]).length > 0);
}

/** Replayable output drops the recording time of proxy recordings, as mountebank does. */
function withoutRecordingTimes(stubs: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  for (const stub of stubs) {
    for (const response of stub.responses as unknown[]) {
      const is = (response as { is?: unknown } | null)?.is;
      if (typeof is === 'object' && is !== null) delete (is as Record<string, unknown>)._proxyResponseTime;
    }
  }
  return stubs;
}

/** Summary entry of `GET /imposters` (docs/imposters.md outputs); `list=true` keeps mountebank's short form. */
export function renderSummary(imposter: Imposter, options: RenderOptions): Record<string, unknown> {
  if (options.compat === 'mountebank') return renderMountebank(imposter, { ...options, list: true });
  const out = header(imposter);
  out.numberOfRequests = imposter.numberOfRequests;
  if (!options.list) {
    out.stubCount = imposter.stubs.length;
    out.enabled = imposter.enabled;
    out.recordRequests = imposter.config.recordRequests === true;
  }
  if (options.baseUrl !== undefined) out._links = links(options.baseUrl, imposter.port);
  return out;
}

/** Stands for the stubs while the detail's other fields are laid out (renderImposterText splices their text in). */
const STUBS_SLOT = Object.freeze({});

/** The detail's fields in order, `stubs` held by STUBS_SLOT. */
function detailFields(imposter: Imposter, options: RenderOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ...header(imposter),
    ...extraConfig(imposter),
    ...imposter.tls,
    numberOfRequests: imposter.numberOfRequests,
    stubCount: imposter.stubs.length,
    enabled: imposter.enabled,
    recordRequests: imposter.config.recordRequests === true,
    requests: imposter.journal.all().map((e) => e.value),
    stubs: STUBS_SLOT,
  };
  // Stub analysis is output only (docs/imposters.md): never part of the replayable config.
  out._svc = { ...(isObject(out._svc) ? out._svc : {}), warnings: imposter.warnings.map((w) => ({ ...w })) };
  if (options.baseUrl !== undefined) out._links = links(options.baseUrl, imposter.port);
  return out;
}

/** `GET /imposters/{port}` detail, or the replayable config with `replayable=true`. */
export function renderImposter(imposter: Imposter, options: RenderOptions): Record<string, unknown> {
  if (options.compat === 'mountebank') return renderMountebank(imposter, options);
  let stubs = imposter.stubConfigs();
  if (options.removeProxies) stubs = withoutProxies(stubs);
  if (options.replayable) {
    if (!options.recordingTimes) stubs = withoutRecordingTimes(stubs);
    return { ...header(imposter), ...extraConfig(imposter), ...imposter.tls, recordRequests: imposter.config.recordRequests === true, stubs };
  }
  const out = detailFields(imposter, options);
  out.stubs = stubs.map((stub, index) => {
    // --debug matches; with removeProxies the indexes no longer line up with the live stubs.
    const matches = options.removeProxies ? undefined : imposter.stubs[index]?.matches;
    const linked = options.baseUrl === undefined ? {} : { _links: stubLinks(options.baseUrl, imposter.port, index) };
    return { ...stub, ...(matches ? { matches: cloneJson(matches) } : {}), ...linked };
  });
  return out;
}

/**
 * `JSON.stringify(renderImposter(imposter, options), null, 2)` as UTF-8 chunks, the admin reply, without
 * copying the stubs: their text is kept between replies (stub-text.ts), so replying to a stub edit costs
 * the stubs it changed and writing the bytes out, not a deep copy and a serialisation of every stub.
 */
export function renderImposterText(imposter: Imposter, options: RenderOptions): readonly Uint8Array[] {
  if (options.compat === 'mountebank' || options.removeProxies) {
    return [Buffer.from(JSON.stringify(renderImposter(imposter, options), null, 2))];
  }
  if (options.replayable) return replayableText(imposter, imposter.stubs);
  const head: Record<string, unknown> = {};
  const tail: Record<string, unknown> = {};
  let into = head;
  for (const [key, value] of Object.entries(detailFields(imposter, options))) {
    if (value === STUBS_SLOT) into = tail;
    else into[key] = value;
  }
  const { baseUrl } = options;
  const stubs = stubsText(imposter, imposter.stubs, {
    // The index is digits, which need no escaping after the escaped prefix.
    href: baseUrl === undefined ? undefined : JSON.stringify(`${baseUrl}/imposters/${imposter.port}/stubs/`).slice(0, -1),
    slow: (index) => {
      const { config, matches } = imposter.stubs[index]!;
      const linked = baseUrl === undefined ? {} : { _links: stubLinks(baseUrl, imposter.port, index) };
      return indentedStub({ ...config, ...(matches ? { matches } : {}), ...linked });
    },
  });
  return spliced(head, stubs, tail);
}

/** `JSON.stringify({...head, stubs, ...tail}, null, 2)` with the stubs array's inner text given. */
function spliced(head: Record<string, unknown>, stubs: Buffer, tail: Record<string, unknown>): readonly Uint8Array[] {
  const empty = stubs.length === 0;
  const before = `${JSON.stringify(head, null, 2).slice(0, -2)},\n  "stubs": ${empty ? '[]' : STUBS_OPEN}`;
  const rest = JSON.stringify(tail, null, 2);
  const after = `${empty ? '' : STUBS_CLOSE}${rest === '{}' ? '\n}' : `,\n${rest.slice(2)}`}`;
  return [Buffer.from(before), stubs, Buffer.from(after)];
}

/** One stub as the replayable form holds it (renderImposter's `replayable` path). */
function replayableStub(config: Record<string, unknown>): Record<string, unknown> {
  return withoutRecordingTimes([cloneJson(config)])[0]!;
}

/**
 * `JSON.stringify(renderImposter(imposter, {replayable: true}), null, 2)` as UTF-8 chunks, as if the
 * imposter's stubs were `stubs` (the data directory writes a change before it is applied), from the
 * stubs' kept text (stub-text.ts): a stub edit costs the stubs it changed and copying bytes.
 */
export function replayableText(imposter: Imposter, stubs: readonly LiveStub[]): readonly Uint8Array[] {
  const head = { ...header(imposter), ...extraConfig(imposter), ...imposter.tls, recordRequests: imposter.config.recordRequests === true };
  const text = stubsText(imposter, stubs, { href: undefined, replayable: true, slow: (index) => indentedStub(replayableStub(stubs[index]!.config)) });
  return spliced(head, text, {});
}

/** Snapshot returned by a delete: the detail with no recorded requests (docs/imposters.md; mountebank keeps them). */
export function renderDeleted(imposter: Imposter, options: RenderOptions): Record<string, unknown> {
  const out = renderImposter(imposter, options);
  if (!options.replayable && options.compat !== 'mountebank') {
    out.numberOfRequests = 0;
    out.requests = [];
  }
  return out;
}
