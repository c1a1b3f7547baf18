/**
 * Entry point of a sandbox worker thread: runs scripts for the imposters the host assigned to it.
 * Messages arrive in batches (one per host event-loop turn) and answers go back in batches too
 * (each with its outcome and the script's log lines): at the end of the batch, or at the first
 * interrupt poll of a script that runs longer, so a slow script does not hold back the answers of
 * the calls before it.
 */
import { platform, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { SandboxSet } from './sandbox.js';
import { createWireReader, GROWN, ReplyBatch, type RunMessage } from './protocol.js';
import { stateHandle, StateBridge, type StateWiring, WorkerFootprint } from '../shared/index.js';
import { hostedThread } from '../../threads/index.js';
import { errorText } from '../../model/index.js';

/** Lower priority than the serving thread (CFS weight about 1:3). */
const SCRIPT_NICENESS = 5;
const port = parentPort;
if (!port) throw new Error('engine/script/js/worker must run as a worker thread');
const { memoryLimitBytes, state } = workerData as { memoryLimitBytes: number; state: StateWiring };
// On Linux this lowers only this thread (elsewhere it would be the whole process): when a script
// spins, the scheduler still favours the thread serving imposter traffic.
if (platform() === 'linux') setPriority(SCRIPT_NICENESS);

const hosted = hostedThread();
const replies = new ReplyBatch();
const flush = (): void => {
  if (!replies.empty) port.postMessage(replies.take());
};
/** At every interrupt poll of a running script: answers so far go out, and the thread beats. */
const poll = (): void => {
  hosted.beat();
  flush();
};
// `_svc.script` ctx.state: the same handle as the Rhai engine's, blocking on the host's flow store.
const bridge = new StateBridge((message) => port.postMessage(message), state);
const sandboxes = await SandboxSet.create(memoryLimitBytes, poll, (message, flowId, method, args) => {
  const handle = stateHandle(flowId, (f, op, a) => bridge.call(message.id, message.deadline, f, op, a));
  const call = handle[method];
  if (!call) throw new Error(`ctx.state.${method} is not a function`);
  return call(...args);
});

function run(message: RunMessage): void {
  try {
    const { outcome, logs } = sandboxes.run(message);
    replies.add(message.id, outcome, logs);
  } catch (err) {
    // A host-side failure (e.g. the wasm heap itself exhausted): drop this imposter's sandbox and report.
    try {
      sandboxes.forget(message.scope);
    } catch {
      // Disposing a broken runtime may fail too; the scope is already unlinked.
    }
    replies.add(message.id, { ok: false, timeout: false, kind: 'runtime', message: `sandbox failure: ${errorText(err)}` }, []);
  }
}

const read = createWireReader({ run, forget: (scope) => sandboxes.forget(scope) });
const footprint = new WorkerFootprint(sandboxes.memoryBytes);
let grown = false;

port.on('message', (batch: string) => {
  read(batch);
  flush();
  if (!grown && footprint.grown()) {
    grown = true;
    port.postMessage(GROWN);
  }
});
hosted.ready();
