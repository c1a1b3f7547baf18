import type { Server } from 'node:net';
import type { Registry } from 'prom-client';
import type { EngineObserver, FaultType } from '../../engine/manager/index.js';
import { classifyAcceptError } from './accept-errors.js';
import { PromFamilies } from './prom-families.js';
import { AcceptTally, RequestTally } from './request-tally.js';

/** Listener families of `svc_accept_errors_total` / `svc_accept_error_outage`. */
export type ListenerKind = 'imposter' | 'admin' | 'metrics' | 'proxy';

type Update = (families: PromFamilies) => void;

/**
 * Updates held before the first scrape. Past this many, prom-client is loaded and they are applied, so
 * a server nobody scrapes keeps a bounded queue (request counts never queue: RequestTally keeps them).
 */
const MAX_HELD_UPDATES = 10_000;

/**
 * Exactly the metrics of docs/metrics-and-events.md, fed by engine observer calls and by the admin/metrics servers'
 * accept loops. prom-client is loaded on the first scrape, not when the metrics port opens: until
 * then updates are held in order and applied to the families when they are built.
 */
export class SvcMetrics implements EngineObserver {
  private families: PromFamilies | undefined;
  private held: Update[] = [];
  private readonly requests = new RequestTally();
  private readonly accepts = new AcceptTally();
  /** Accept loops currently in a systemic outage, per listener family (imposter loops by port). */
  private readonly wedged = new Map<ListenerKind, Set<unknown>>();

  constructor() {
    this.listenerRunning('imposter');
  }

  /** The prom-client registry (building it loads prom-client). */
  get registry(): Registry {
    return this.live().registry;
  }

  private live(): PromFamilies {
    if (this.families === undefined) {
      const families = new PromFamilies(this.requests, this.accepts);
      for (const update of this.held) update(families);
      this.held = [];
      this.families = families;
    }
    return this.families;
  }

  private update(change: Update): void {
    if (this.families !== undefined) change(this.families);
    else if (this.held.push(change) >= MAX_HELD_UPDATES) this.live();
  }

  /** Puts a listener family's accept-error series on the page at 0 (SPEC: present from startup). */
  private listenerRunning(listener: ListenerKind): void {
    this.update((f) => f.acceptErrors.get(listener, 'transient').inc(0));
    this.update((f) => f.acceptErrors.get(listener, 'systemic').inc(0));
    const outage = this.wedgedSet(listener).size > 0 ? 1 : 0;
    this.update((f) => f.outage.get(listener).set(outage));
  }

  /**
   * Follows a node:net based server (admin, metrics, proxy) for accept errors; fatal ones (the
   * listening socket broke) are not counted for these listeners. Returns the detach function.
   */
  watchServer(server: Server, listener: Exclude<ListenerKind, 'imposter'>): () => void {
    this.listenerRunning(listener);
    const onError = (error: Error): void => {
      const kind = classifyAcceptError(error);
      if (kind === 'fatal') return;
      this.update((f) => f.acceptErrors.get(listener, kind).inc());
      if (kind === 'systemic') this.wedge(listener, server);
    };
    const onConnection = (): void => this.release(listener, server);
    const onClose = (): void => this.release(listener, server);
    server.on('error', onError);
    server.on('connection', onConnection);
    server.on('close', onClose);
    return () => {
      server.off('error', onError);
      server.off('connection', onConnection);
      server.off('close', onClose);
      this.release(listener, server);
    };
  }

  /** Async so a failure to load prom-client rejects, answering the scrape with an error. */
  async exposition(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private wedgedSet(listener: ListenerKind): Set<unknown> {
    let set = this.wedged.get(listener);
    if (set === undefined) {
      set = new Set();
      this.wedged.set(listener, set);
    }
    return set;
  }

  private wedge(listener: ListenerKind, loop: unknown): void {
    const set = this.wedgedSet(listener);
    set.add(loop);
    this.update((f) => f.outage.get(listener).set(1));
  }

  private release(listener: ListenerKind, loop: unknown): void {
    const set = this.wedgedSet(listener);
    if (!set.delete(loop)) return;
    const outage = set.size > 0 ? 1 : 0;
    this.update((f) => f.outage.get(listener).set(outage));
  }

  // ---- EngineObserver ----

  onRequest(_port: number, method: string, status: number): void {
    this.requests.add(method, status);
  }

  onFault(type: FaultType, ruleId: string, source: string): void {
    this.update((f) => f.faults.get(type, ruleId, source).inc());
  }

  onLatencyInjected(ruleId: string, ms: number): void {
    this.update((f) => f.latency.get(ruleId).observe(ms));
  }

  onErrorStatus(status: number, ruleId: string): void {
    this.update((f) => f.errorStatus.get(String(status), ruleId).inc());
  }

  onScript(ruleId: string, result: string, durationMs: number): void {
    this.update((f) => f.scripts.get(ruleId, result).observe(durationMs));
  }

  onScriptError(ruleId: string, errorType: string): void {
    this.update((f) => f.scriptErrors.get(ruleId, errorType).inc());
  }

  onFlowStateOp(operation: string, result: string): void {
    this.update((f) => f.flowOps.get(operation, result).inc());
  }

  onActiveFlows(backend: string, delta: number): void {
    this.update((f) => f.flows.get(backend).inc(delta));
  }

  onProxy(method: string, faultApplied: boolean, durationMs: number): void {
    this.update((f) => f.proxies.get(method, String(faultApplied)).observe(durationMs));
  }

  onUpstream(method: string, status: number, durationMs: number): void {
    this.update((f) => f.upstreams.get(method, String(status)).observe(durationMs));
  }

  onConnection(port: number, worker: number): void {
    this.accepts.add(worker);
    this.release('imposter', port);
  }

  /** Imposter loops count a broken listening socket as systemic (it stays wedged until the loop ends). */
  onAcceptError(port: number, error: Error): void {
    const kind = classifyAcceptError(error) === 'transient' ? 'transient' : 'systemic';
    this.update((f) => f.acceptErrors.get('imposter', kind).inc());
    if (kind === 'systemic') this.wedge('imposter', port);
  }

  onListenerClosed(port: number): void {
    this.release('imposter', port);
  }
}
