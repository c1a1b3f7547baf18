/**
 * Entry point of a sandbox worker thread: runs scripts for the imposters the host assigned to it.
 * Messages arrive in batches (one per host event-loop turn) and answers go back in batches too
 * (each with its outcome and the script's log lines): at the end of the batch, or at the first
 * interrupt poll of a script that runs longer, so a slow script does not hold back the answers of
 * the calls before it.
 */
import { platform, setPriority } from 'node:os';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { SandboxSet } from './sandbox.js';
import { createWireReader, GROWN, ReplyBatch, type RunMessage } from './protocol.js';
import { LINK_HELLO, stateHandle, StateBridge, type StateWiring, WorkerFootprint } from '../shared/index.js';
import { hostedThread } from '../../threads/index.js';
import { errorText } from '../../model/index.js';

/** Lower priority than the serving thread (CFS weight about 1:3). */
const SCRIPT_NICENESS = 5;
const port = parentPort!;
const { memoryLimitBytes, state } = workerData as { memoryLimitBytes: number; state: StateWiring };
// On Linux this lowers only this thread (elsewhere it would be the whole process): when a script
// spins, the scheduler still favours the thread serving imposter traffic.
if (platform() === 'linux') setPriority(SCRIPT_NICENESS);

const hosted = hostedThread();

/**
 * Where a batch came from and where its answers go: the host (the parent port), or an engine thread's
 * direct link (engine/threads/links.ts); each sender numbers its own sources. `ctx.state` questions
 * always go to the host (main owns every imposter's store); a linked run's carry its imposter.
 */
interface Origin {
  post(message: unknown): void;
  readonly replies: ReplyBatch;
  readonly linked: boolean;
  read(batch: string): void;
}

const origins = new Set<Origin>();
/** The origin of the batch being run. */
let current: Origin | undefined;

function originOn(post: (message: unknown) => void, linked: boolean): Origin {
  const origin: Origin = {
    post,
    replies: new ReplyBatch(),
    linked,
    read: createWireReader({ run: (message) => run(message, origin), forget: (scope) => sandboxes.forget(scope) }),
  };
  origins.add(origin);
  return origin;
}

const flush = (): void => {
  for (const origin of origins) if (!origin.replies.empty) origin.post(origin.replies.take());
};
/** At every interrupt poll of a running script: answers so far go out, and the thread beats. */
const poll = (): void => {
  hosted.beat();
  flush();
};
// `_svc.script` ctx.state: the same handle as the Rhai engine's, blocking on the host's flow store.
const bridge = new StateBridge((message) => port.postMessage(message), state);
const sandboxes = await SandboxSet.create(memoryLimitBytes, poll, (message, flowId, method, args) => {
  const scope = current?.linked ? message.scope : undefined;
  const handle = stateHandle(flowId, (f, op, a) => bridge.call(message.id, message.deadline, f, op, a, scope));
  const call = handle[method];
  if (!call) throw new Error(`ctx.state.${method} is not a function`);
  return call(...args);
});

function run(message: RunMessage, origin: Origin): void {
  try {
    const { outcome, logs } = sandboxes.run(message);
    origin.replies.add(message.id, outcome, logs);
  } catch (err) {
    // A host-side failure (e.g. the wasm heap itself exhausted): drop this imposter's sandbox and report.
    try {
      sandboxes.forget(message.scope);
    } catch {
      // Disposing a broken runtime may fail too; the scope is already unlinked.
    }
    origin.replies.add(message.id, { ok: false, timeout: false, kind: 'runtime', message: `sandbox failure: ${errorText(err)}` }, []);
  }
}

const footprint = new WorkerFootprint(sandboxes.memoryBytes);
let grown = false;
/** A flushTurn is scheduled. */
let flushing = false;

function receive(origin: Origin, batch: string): void {
  current = origin;
  try {
    origin.read(batch);
  } finally {
    current = undefined;
  }
  // Once per turn: the batches the port delivers in one turn are answered in one message each way.
  if (!flushing) {
    flushing = true;
    setImmediate(flushTurn);
  }
}

/** The turn's answers go, then the host hears if the sandboxes grew past their bound (it replaces this worker once it owes nothing). */
function flushTurn(): void {
  flushing = false;
  flush();
  if (!grown && footprint.grown()) {
    grown = true;
    port.postMessage(GROWN);
  }
}

const host = originOn((message) => port.postMessage(message), false);

/** An engine thread's link: batches as from the host, answered on the link. */
function link(linkPort: MessagePort): void {
  const origin = originOn((m) => linkPort.postMessage(m), true);
  linkPort.on('message', (batch: string) => receive(origin, batch));
  linkPort.on('close', () => origins.delete(origin));
  // The engine thread posts its calls, and starts their deadlines, once it hears this (engine/script/shared/worker-links.ts).
  linkPort.postMessage(LINK_HELLO);
}

port.on('message', (batch: string | { link: MessagePort }) => {
  if (typeof batch === 'string') receive(host, batch);
  else link(batch.link);
});
hosted.ready();
