/**
 * Entry point of a sandbox worker thread: runs scripts for the imposters the host assigned to it,
 * one message at a time, and answers each `run` with its outcome and the script's log lines.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadQuickJS, SandboxSet } from './sandbox.js';
import type { HostMessage, RunReply } from './protocol.js';

const port = parentPort;
if (!port) throw new Error('engine/script/js/worker must run as a worker thread');
const { memoryLimitBytes } = workerData as { memoryLimitBytes: number };
const sandboxes = new SandboxSet(await loadQuickJS(memoryLimitBytes), memoryLimitBytes);

port.on('message', (message: HostMessage) => {
  if (message.type === 'forget') {
    sandboxes.forget(message.scope);
    return;
  }
  let reply: RunReply;
  try {
    const { outcome, logs } = sandboxes.run(message);
    reply = { ...outcome, type: 'result', id: message.id, logs };
  } catch (err) {
    // A host-side failure (e.g. the wasm heap itself exhausted): drop this imposter's sandbox and report.
    try {
      sandboxes.forget(message.scope);
    } catch {
      // Disposing a broken runtime may fail too; the scope is already unlinked.
    }
    reply = { ok: false, timeout: false, kind: 'runtime', message: `sandbox failure: ${(err as Error).message}`, type: 'result', id: message.id, logs: [] };
  }
  port.postMessage(reply);
});
