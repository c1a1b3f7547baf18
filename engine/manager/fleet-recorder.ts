/**
 * proxyOnce in a fleet (issue 20): requests on any node whose generated predicates are the same record
 * one stub fleet-wide, and the upstream sees one of them. On each node, requests in flight join the
 * first (recordOnce); that one looks for the recording among the stubs, else claims the key in Redis:
 * the claimer calls the upstream and shares the new stub through the fleet's versioned write; the
 * others wait until the change feed brings it and replay it. A claimer that dies stops renewing its
 * claim: it expires and the next node to look claims it. Without Redis the request is proxied and
 * nothing is recorded (a recording this node alone held would not be the fleet's).
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../log/index.js';
import { canonicalJson, errorText } from '../model/index.js';
import { recordingFor, recordOnce, storeRecording, type OnceRecording, type ProxyRecorder, type StubStore } from '../respond/index.js';
import { StaleWrite, type RecordingClaims } from './fleet-replica.js';

/** How long a waiter sleeps between looks when no change reaches it (the claim may have expired). */
const LOOK_AGAIN_MS = 100;
/** A recording that keeps losing its conditional write to other nodes' writes gives up after these. */
const STALE_RETRIES = 5;

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
  return {
    async store(source, mode, predicates, recorded) {
      // proxyAlways and proxyTransparent record on this node as before.
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
            if (!warnedUnshared) log.warn(`imposter ${port}: redis is unreachable; proxyOnce proxies without recording until it is back`);
            warnedUnshared = true;
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
