import type { RecordedRequest } from './recorded-request.js';

export type LifecycleAction = 'created' | 'replaced' | 'stubsChanged' | 'deleted' | 'allDeleted';

/**
 * What the engine tells the planes around it (metrics, event stream, data directory).
 * Every member is optional and called synchronously: implementations must be cheap and never throw.
 */
export interface EngineObserver {
  /** Every request answered with an HTTP status (not TCP faults). */
  onRequest?(port: number, method: string, status: number): void;
  /** A recorded request once its status and latency are stamped. */
  onRecorded?(port: number, index: number, request: RecordedRequest): void;
  /** Imposter lifecycle; `port` is null for `allDeleted`. */
  onLifecycle?(action: LifecycleAction, port: number | null): void;
}

/** Fans one call out to every registered observer; a failing observer is isolated. */
export class ObserverSet implements Required<EngineObserver> {
  private readonly list: EngineObserver[] = [];
  hasRequestObservers = false;

  add(observer: EngineObserver): () => void {
    this.list.push(observer);
    this.hasRequestObservers = this.list.some((o) => o.onRequest);
    return () => {
      const at = this.list.indexOf(observer);
      if (at !== -1) this.list.splice(at, 1);
      this.hasRequestObservers = this.list.some((o) => o.onRequest);
    };
  }

  onRequest(port: number, method: string, status: number): void {
    for (const o of this.list) if (o.onRequest) safely(() => o.onRequest!(port, method, status));
  }

  onRecorded(port: number, index: number, request: RecordedRequest): void {
    for (const o of this.list) if (o.onRecorded) safely(() => o.onRecorded!(port, index, request));
  }

  onLifecycle(action: LifecycleAction, port: number | null): void {
    for (const o of this.list) if (o.onLifecycle) safely(() => o.onLifecycle!(action, port));
  }
}

function safely(call: () => void): void {
  try {
    call();
  } catch {
    // An observer must never break request serving or an admin call.
  }
}
