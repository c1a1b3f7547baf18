import type { Logger } from '../log/index.js';
import type { RuntimeSettings } from '../runtime/index.js';
import type { ScriptBase } from '../script/svc/index.js';
import type { ConnectionTimeouts } from '../transport/index.js';
import type { ConfigReplica } from './fleet-replica.js';
import type { Compat } from './imposter-json.js';
import type { RecordedRequest } from './recorded-request.js';

export interface ManagerOptions {
  allowInjection: boolean;
  /** `--scripts-dir`: where `file:` scripts of admin-created imposters resolve (default: the working directory). */
  scriptsDir?: string;
  /** Bind address for imposters without their own `host` (mountebank binds all interfaces). */
  host?: string;
  maxBodyBytes?: number;
  /** Request-body bytes all imposter ports (and the front door) buffer at once; 256 MiB when absent. */
  maxBufferedBodyBytes?: number;
  /** Imposter (and front door) connection timeouts; mountebank's node:http defaults when absent. */
  timeouts?: ConnectionTimeouts;
  /** mountebank's `--mock` flag: every imposter records requests, whatever its recordRequests says. */
  recordAllRequests?: boolean;
  /** mountebank's `--debug` flag: each stub keeps the requests it matched, read back as `matches`. */
  debugMatches?: boolean;
  /**
   * `--compat mountebank`: mountebank 2.9.1's observable admin behaviour (its imposter JSON, no generated
   * stub ids, `protocol` required, 200 `{}` for deleting a missing imposter, unknown faults ignored).
   */
  compat?: Compat;
  /** `--localOnly` / `--ipWhitelist` (transport connectionFilter); absent serves every peer. */
  allowConnection?: (remoteAddress: string | undefined) => boolean;
  log: Logger;
  /**
   * `--runtime` / `--workers`: with per-core, imposter listeners are accepted by `workers` engine threads
   * (the main thread included). Absent: SVC_RUNTIME / SVC_WORKERS decide.
   */
  runtime?: RuntimeSettings;
  /** Where imposters are kept durably (the data directory); absent keeps them in memory only. */
  persistence?: PersistenceHooks;
  /**
   * `--fleet`: the Redis-backed set shared by several svc processes (engine/fleet). Admin writes are
   * admitted by it and shared through it once applied here; call `joinFleet()` before serving.
   */
  fleet?: ConfigReplica;
}

/** A durable copy of the imposter set (the data directory) that every change must reach before it answers. */
export interface PersistenceHooks {
  /**
   * Runs before an imposter is deleted (not when it is replaced); throwing keeps the imposter, and the
   * error (an SvcError 503 from the data directory) is what the caller sees.
   */
  beforeDelete(port: number): void;
  /**
   * Keeps `document()` (the imposter's replayable JSON as the admin API writes it, two-space indent, in
   * UTF-8 chunks) as the imposter on `port`, before the call answers; throwing refuses the change (it is
   * not applied, or undone) and the error (an SvcError 503) is what the caller sees.
   */
  persist(port: number, document: () => readonly Uint8Array[]): void;
}

export type StubRef = { index: number } | { id: string };

/** What every call may say about its caller; each surface passes these instead of positional flags. */
export interface CallOptions {
  /**
   * The caller is not injection-gated (the C functions, svc_serve_admin's inline config): scripted
   * configs are admitted whatever the manager's `allowInjection`.
   */
  trusted?: boolean;
}

/** Creating imposters or editing stubs: `generateIds` (default true) gives id-less stubs an id (docs/imposters.md). */
export interface StubEditOptions extends CallOptions {
  generateIds?: boolean;
}

export type CreateOptions = StubEditOptions;

export interface ParseOptions extends StubEditOptions {
  /** Where `file:` scripts resolve; by default under `--scripts-dir` (admin-created imposters). */
  scriptBase?: ScriptBase;
}

/** POST /imposters/{port}/stubs: `index` (validated here, it arrives as raw JSON) places the stub; absent appends. */
export interface AddStubOptions extends StubEditOptions {
  index?: unknown;
}

export interface ApplyOptions extends StubEditOptions {
  /** Per body, where its `file:` scripts resolve (config files and data directories). */
  scriptBases?: ReadonlyArray<ScriptBase | undefined>;
  /** Startup and reload apply what they can and report the rest (a persisted imposter whose port is taken is listed, the others start). */
  partial?: boolean;
  /** Startup and reload: the set comes from the durable sources themselves, so nothing is written back. */
  fromSources?: boolean;
}

export type VerifyOptions = CallOptions;

/** `baseUrl`: the base of `_links`, as in RenderOptions; absent (the C ABI) renders none. */
export interface LinkOptions {
  baseUrl?: string;
}

export interface ClearRequestsOptions {
  /** Only the recorded requests matching every clause (docs/recording-and-verify.md); absent clears them all. */
  match?: string[];
}

export interface ApplyReport {
  created: number[];
  replaced: number[];
  stubPatched: number[];
  deleted: number[];
  unchanged: number[];
  /** `restored`: a replacement failed and the imposter it replaced runs again as it was (journal and flow state not kept). */
  failed: Array<{ port: number; error: string; restored?: boolean }>;
}

export interface SavedRequestsQuery {
  since?: number;
  match?: string[];
}

export interface SavedRequestsPage {
  requests: RecordedRequest[];
  /** Undefined for a degraded read (a fleet journal missing records). */
  nextIndex: number | undefined;
  truncated: boolean;
}
