/**
 * An engine thread of the per-core runtime: accepts on its duplicates of the main thread's listening
 * sockets and parses requests (HTTP/1, h2c, TLS, h2). A request to a listener with a plan is served
 * here by the same request pipeline the main thread runs (thread-imposter.ts); any other is forwarded
 * to the main thread, which runs the one engine and answers through this thread's real response sink.
 */
import { closeSync } from 'node:fs';
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { BodyBudget, connectionFilter, createListener, type Listener, type OutgoingHeaders, type ResponseSink } from '../transport/index.js';
import { asBuffer, type FromThread, type ObserverEvent, type PlanMessage, type ScriptLinkMessage, type ThreadReport, type ToThread } from './protocol.js';
import { LinkedJsHost } from '../script/js/index.js';
import { LinkedSvcRunner } from '../script/svc/index.js';
import type { LogLevel } from '../script/svc/index.js';
import { exactBytes, Kept } from './intern.js';
import { ThreadImposter } from './thread-imposter.js';
import { ThreadRedisStores, type FlowCaller } from './remote-flow-store.js';
import { RecordBatch } from './record-batch.js';
import { EventRing } from './event-ring.js';
import { CountTables } from './counts.js';
import { CallTable, hostedThread, PerTurn } from '../threads/index.js';
import { errorText } from '../model/index.js';

const port = parentPort!;
/** Messages of one event-loop turn go as one batch: a message's fixed cost is paid once for all of them. */
let outbox: FromThread[] = [];
/** Connections accepted since the last batch, by listener: one entry per batch, not one per connection. */
const accepted = new Map<number, number>();
const flush = (): void => {
  const batch = outbox;
  outbox = [];
  // First in the batch: a connection is counted before any request it carried.
  for (const [id, count] of accepted) batch.unshift({ t: 'accepted', id, count });
  accepted.clear();
  port.postMessage(batch);
};
const turn = new PerTurn('turn', flush);
const schedule = (): void => turn.schedule();
const post = (message: FromThread): void => {
  outbox.push(message);
  schedule();
};
const listeners = new Map<number, Listener>();
const pending = new CallTable<ResponseSink>();
/** Static responses' header lists and bodies, by the ids the main thread's interners gave them. */
const keptHeaders = new Kept<OutgoingHeaders>([]);
const keptBodies = new Kept<Uint8Array>(new Uint8Array(0));
let nextRequest = 1;

/** Plans in (main posts them here before bumping a listener's version); count keys, records and fault metrics out. */
const { control, slot } = workerData as { control: MessagePort; slot: number };
const report = (message: ThreadReport): void => control.postMessage(message);
const records = new RecordBatch(report);
const events = new EventRing(
  (key) => report({ t: 'eventKey', key }),
  () => report({ t: 'eventsWaiting' }),
);
/** A metric event of the imposter on listener `id`, replayed on main: in the ring, else (full) as a message. */
const observed = (id: number, event: ObserverEvent): void => {
  if (!events.add(id, event)) report({ t: 'event', id, event });
};
/** Flow store operations of this thread's own redis stores, counted on main (svc_flow_state_ops_total). */
const redisStores = new ThreadRedisStores((id, operation, result) => observed(id, { name: 'onFlowStateOp', args: [operation, result] }));
/** Each listener's newest plan this thread has applied; `local` absent: forward its requests. */
const plans = new Map<number, { version: number; local?: ThreadImposter }>();
const counts = new CountTables((key) => report({ t: 'key', key }));
const log = (level: LogLevel, message: string): void => post({ t: 'log', level, message });
/** Scripts go from here straight to the script workers, on links main hands this thread (engine/threads/links.ts). */
const stuck =
  (pool: string) =>
  (worker: number, generation: number): void =>
    post({ t: 'scriptStuck', pool, worker, generation });
// Main's logger filters script log lines by its level.
const scriptLog = {
  isEnabled: () => true,
  debug: (m: string) => log('debug', m),
  info: (m: string) => log('info', m),
  warn: (m: string) => log('warn', m),
  error: (m: string) => log('error', m),
};
const js = new LinkedJsHost({ log: scriptLog, stuck: stuck('js') });
const svc = new LinkedSvcRunner({
  log: (level, message) => log(level, `svc::script ${message}`),
  javascript: () => js,
  stuck: stuck('rhai'),
  stalled: () => post({ t: 'scriptStall', pool: 'rhai' }),
  slot,
});
const scriptLinks = { js, svc };
const scripts = () => scriptLinks;

function linked(message: ScriptLinkMessage): void {
  if (message.offer.pool === 'js') js.attach(message.offer, message.port);
  else svc.attach(message.offer, message.port);
}

/** The control channel carries plans and script links, in the order main posted them. */
function controlMessage(message: PlanMessage | ScriptLinkMessage): void {
  if ('t' in message) linked(message);
  else applyPlan(message);
}

/** Flow store and proxy recorder calls waiting for the main thread (their owner) to answer. */
const calls = new CallTable<{ resolve(value: unknown): void; reject(error: Error): void }>();
let nextCall = 1;
const ownerCall =
  (t: 'flow' | 'proxy', id: number) =>
  (op: string, args: unknown[]): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const c = nextCall++;
      calls.set(c, { resolve, reject });
      post({ t, id, c, op, args });
    });
const flowCall = (id: number): FlowCaller => ownerCall('flow', id);

function done(message: Extract<ToThread, { t: 'done' }>): void {
  const call = calls.get(message.c);
  calls.delete(message.c);
  if (message.error !== undefined) call?.reject(new Error(message.error));
  else call?.resolve(message.value);
}

function applyPlan(message: PlanMessage): void {
  const known = plans.get(message.id);
  if (known && known.version >= message.version) return;
  let local: ThreadImposter | undefined;
  try {
    local =
      message.plan
      && new ThreadImposter(message.plan, {
        slot,
        id: message.id,
        report,
        observed,
        records,
        log,
        counts,
        flowCall: flowCall(message.id),
        proxyCall: ownerCall('proxy', message.id),
        redisStores,
        scripts,
      });
  } catch (err) {
    // Forwarding is always right: the main thread answers as on one loop.
    post({ t: 'log', level: 'warn', message: `engine thread: plan for listener ${message.id} not usable, forwarding: ${errorText(err)}` });
  }
  plans.set(message.id, { version: message.version, local });
}

/** Synchronously takes every plan posted so far (a request must see every stub edit that returned before it). */
function drainPlans(): void {
  for (let received = receiveMessageOnPort(control); received; received = receiveMessageOnPort(control)) {
    controlMessage(received.message as PlanMessage | ScriptLinkMessage);
  }
}

control.on('message', controlMessage);

async function listen(message: Extract<ToThread, { t: 'listen' }>): Promise<void> {
  const { id, fd, options, http2Allowed, version } = message;
  const filter =
    options.filter
    && connectionFilter(options.filter.localOnly, options.filter.ipWhitelist, (address) =>
      post({ t: 'log', level: 'warn', message: `Blocking incoming connection from ${address}. Turn off --localOnly or add to --ipWhitelist to allow` }),
    );
  try {
    const listener = await createListener(
      {
        ...options,
        fd,
        // Shared memory: the cap holds across threads. Without it (a budget made elsewhere) this thread's own.
        bodyBudget: options.bodyBudget && new BodyBudget(options.bodyBudget.limitBytes, options.bodyBudget.memory),
        allowConnection: filter,
        http2Allowed: () => Atomics.load(http2Allowed, 0) === 1,
        events: {
          accepted: () => {
            accepted.set(id, (accepted.get(id) ?? 0) + 1);
            schedule();
          },
          acceptFailed: (error) => post({ t: 'acceptFailed', id, message: error.message, code: (error as NodeJS.ErrnoException).code }),
        },
      },
      (wire, sink) => {
        let plan = plans.get(id);
        if (plan === undefined || plan.version !== Atomics.load(version, 0)) {
          drainPlans();
          plan = plans.get(id);
        }
        if (plan?.local) {
          plan.local.handle(wire, sink);
          return;
        }
        const r = nextRequest++;
        pending.set(r, sink);
        post({ t: 'req', id, r, protocol: sink.protocol, wire: { ...wire, body: asBuffer(exactBytes(wire.body)) } });
      },
    );
    listeners.set(id, listener);
    post({ t: 'listening', id });
  } catch (err) {
    try {
      closeSync(fd);
    } catch {
      // Already closed by the failed server.
    }
    post({ t: 'listenFailed', id, message: errorText(err), code: (err as NodeJS.ErrnoException).code });
  }
}

async function close(id: number): Promise<void> {
  await listeners.get(id)?.close();
  listeners.delete(id);
  plans.delete(id);
  redisStores.drop(id);
  counts.drop(id);
  events.drop(id);
  post({ t: 'closed', id });
}

/** The main thread's answer applied to the real sink; a connection closed meanwhile makes it a no-op. */
function answer(message: Exclude<ToThread, { t: 'listen' } | { t: 'close' } | { t: 'forget' } | { t: 'done' }>): void {
  const sink = pending.get(message.r);
  if (!sink) return;
  pending.delete(message.r);
  try {
    if (message.t === 'send') {
      sink.send(message.status, keptHeaders.resolve(message.headers, message.hid), asBuffer(keptBodies.resolve(message.body, message.bid)));
    } else if (message.t === 'reset') sink.reset();
    else if (message.t === 'empty') sink.closeEmpty();
    else sink.writeRawAndClose(asBuffer(message.body));
  } catch (err) {
    post({ t: 'log', level: 'error', message: `engine thread: cannot write response: ${errorText(err)}` });
    sink.reset();
  }
}

port.on('message', (batch: ToThread[]) => {
  for (const message of batch) {
    if (message.t === 'listen') void listen(message);
    else if (message.t === 'close') void close(message.id);
    else if (message.t === 'done') done(message);
    else if (message.t === 'forget') {
      keptHeaders.forget();
      keptBodies.forget();
    } else answer(message);
  }
});
hostedThread().ready();
