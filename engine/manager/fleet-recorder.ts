/**
 * proxyOnce in a fleet (issue 20): requests on any node whose generated predicates are the same record
 * one stub fleet-wide, and the upstream sees one of them. On each node, requests in flight join the
 * first (recordOnce); that one looks for the recording among the stubs, else claims the key in Redis:
 * the claimer calls the upstream and shares the new stub through the fleet's versioned write; the
 * others wait until the change feed brings it and replay it. A claimer that dies stops renewing its
 * claim: it expires and the next node to look claims it. Without Redis the request is proxied and
 * nothing is recorded (a recording this node alone held would not be the fleet's).
 *
 * proxyAlways in a fleet: every node's recordings go into the one shared imposter (the stub after the
 * proxy with the same predicates, else a new stub at the end, as on one node) by the same conditional
 * write; the recordings a node makes while its previous write is queued or in flight go in one write. A
 * write that loses to another node's takes the newer config and records the batch again on it. Without
 * Redis the request is proxied and nothing is recorded, as for proxyOnce.
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../log/index.js';
import { canonicalJson, errorText, SvcError } from '../model/index.js';
import { recordingFor, recordOnce, storeRecording, type OnceRecording, type ProxyRecorder, type StubStore } from '../respond/index.js';
import { StaleWrite, type RecordingClaims } from './fleet-replica.js';

/** How long a waiter sleeps between looks when no change reaches it (the claim may have expired). */
const LOOK_AGAIN_MS = 100;
/** A recording that keeps losing its conditional write to other nodes' writes gives up after these. */
const STALE_RETRIES = 5;
/** proxyAlways: every node records every request, so writes lose more often; each loss means another node won. */
const ALWAYS_STALE_RETRIES = 50;

/** A proxyAlways recording waiting for its batch's write. */
interface PendingRecording {
  source: object;
  predicates: unknown[];
  recorded: Record<string, unknown>;
  done(stored: boolean): void;
}

export interface FleetRecorderOptions {
  claims: RecordingClaims;
  /** Runs `work` (it changes the stubs) as a fleet write shared only if the imposter is unchanged. */
  share(work: () => Promise<boolean>): Promise<boolean>;
  log: Logger;
  port: number;
}

/** The fleet-wide key of a proxy response and predicates: the proxy's stub config (the same on every node), its response, the predicates. */
function claimKey(store: StubStore, source: object, predicates: unknown[]): string | undefined {
  for (const stub of store.stubs) {
    const at = stub.cycle.responses.indexOf(source);
    if (at !== -1)
      return createHash('sha1')
        .update(canonicalJson([stub.config, at, predicates]))
        .digest('base64url');
  }
  return undefined;
}

export function fleetRecorder(store: StubStore, options: FleetRecorderOptions): ProxyRecorder {
  const { claims, share, log, port } = options;
  let warnedUnshared = false;
  const unshared = (what: string) => {
    if (!warnedUnshared) log.warn(`imposter ${port}: redis is unreachable; ${what} until it is back`);
    warnedUnshared = true;
  };
  /** The proxyAlways batch whose write has not started yet: later recordings join it. */
  let open: PendingRecording[] | undefined;

  const writeBatch = async (batch: PendingRecording[]): Promise<void> => {
    let stored: boolean[] = batch.map(() => false);
    for (let tries = 1; ; tries += 1) {
      try {
        await share(async () => {
          if (open === batch) open = undefined;
          stored = batch.map((r) => storeRecording(store, r.source, 'proxyAlways', r.predicates, r.recorded));
          return stored.some(Boolean);
        });
        warnedUnshared = false;
        break;
      } catch (err) {
        if (open === batch) open = undefined;
        stored = batch.map(() => false);
        if (err instanceof StaleWrite && tries < ALWAYS_STALE_RETRIES) continue;
        // The fleet's 503: Redis away (admit, or the write failed under it); anything else is said as it is.
        if (err instanceof SvcError && err.status === 503) unshared('proxyAlways proxies without recording');
        else
          log.warn(
            `imposter ${port}: ${batch.length} proxyAlways recording(s) not stored (${errorText(err)}${err instanceof StaleWrite ? `, ${tries} times` : ''})`,
          );
        break;
      }
    }
    for (const [i, r] of batch.entries()) r.done(stored[i]);
  };

  const recordAlways = (source: object, predicates: unknown[], recorded: Record<string, unknown>): Promise<boolean> =>
    new Promise((done) => {
      const pending = { source, predicates, recorded, done };
      if (open) {
        open.push(pending);
        return;
      }
      open = [pending];
      void writeBatch(open);
    });

  return {
    async store(source, mode, predicates, recorded) {
      if (mode === 'proxyAlways') return recordAlways(source, predicates, recorded);
      // proxyTransparent records nothing.
      if (mode !== 'proxyOnce') return storeRecording(store, source, mode, predicates, recorded);
      for (let tries = 1; ; tries += 1) {
        try {
          // A recording another node shared meanwhile (its claim expired under a stalled claimer) is kept alone.
          return await share(async () => recordingFor(store, source, predicates) === undefined && storeRecording(store, source, mode, predicates, recorded));
        } catch (err) {
          if (err instanceof StaleWrite && tries < STALE_RETRIES) continue;
          // Redis away (the request was answered; `once` said so once) or the write kept losing.
          log.debug(`imposter ${port}: proxyOnce recording not stored (${errorText(err)})`);
          return false;
        }
      }
    },
    once<T>(source: object, predicates: unknown[], record: () => Promise<OnceRecording<T>>) {
      return recordOnce(source, predicates, async (): Promise<OnceRecording<T>> => {
        for (;;) {
          const recorded = recordingFor(store, source, predicates);
          if (recorded) return { replay: structuredClone(recorded) };
          const key = claimKey(store, source, predicates);
          // The proxy's stub is gone: record() stores nothing, as on one node.
          if (key === undefined) return record();
          const answer = await claims.claim(key);
          if (answer === 'busy') {
            await claims.changed(LOOK_AGAIN_MS);
            continue;
          }
          if (answer === 'unshared') {
            unshared('proxyOnce proxies without recording');
            return record();
          }
          warnedUnshared = false;
          try {
            return await record();
          } finally {
            await claims.release(key);
          }
        }
      });
    },
  };
}
