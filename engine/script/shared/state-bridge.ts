/**
 * Synchronous `ctx.state` for scripts on worker threads (docs/scripts.md, §8). The worker posts the
 * operation to the main thread and sleeps on a shared word (Atomics.wait) until the main thread has
 * put the FlowStore's answer on the state port and woken it; a late answer to an abandoned question
 * is recognised by its sequence number and dropped.
 *
 * Worker side: StateBridge. Main side: StateChannel (one per worker), which owns the shared word and
 * the port pair and answers from whichever FlowStore the asking run belongs to.
 */
import { MessageChannel, receiveMessageOnPort, type MessagePort, type TransferListItem } from 'node:worker_threads';
import type { FlowStore } from '../../state/index.js';
import type { StateAnswer, StateMessage, StateOp } from './protocol.js';
import { errorText, SvcFailure } from '../../model/index.js';

/** The deadline passed while waiting for the store. */
export class StateTimeout extends SvcFailure {}
/** The store failed (docs/scripts.md: a script error, never a silent default); a JavaScript script's `ctx.state` call throws it, and the script may catch it. */
export class BackendFailure extends SvcFailure {}

/** What a worker needs from its StateChannel, passed in workerData. */
export interface StateWiring {
  signal: SharedArrayBuffer;
  statePort: MessagePort;
}

export class StateBridge {
  private readonly wake: Int32Array;
  private seq = 0;

  constructor(
    private readonly post: (message: StateMessage) => void,
    private readonly wiring: StateWiring,
  ) {
    this.wake = new Int32Array(wiring.signal);
  }

  /**
   * One operation for run `id` (of imposter `scope` when an engine thread posted it); returns the
   * store's answer or throws StateTimeout / BackendFailure.
   */
  call(id: number, deadline: number, flowId: string, op: StateOp, args: unknown[], scope?: number): unknown {
    const seq = ++this.seq;
    Atomics.store(this.wake, 0, 0);
    const message: StateMessage = { type: 'state', id, seq, flowId, op, args };
    if (scope !== undefined) message.scope = scope;
    this.post(message);
    for (;;) {
      let answer: StateAnswer | undefined;
      for (let m = receiveMessageOnPort(this.wiring.statePort); m; m = receiveMessageOnPort(this.wiring.statePort)) {
        if ((m.message as StateAnswer).seq === seq) answer = m.message as StateAnswer;
      }
      if (answer) {
        if (answer.ok) return answer.value;
        throw new BackendFailure(`flow state ${op} failed: ${answer.message}`);
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new StateTimeout('deadline passed while waiting for the flow store');
      Atomics.wait(this.wake, 0, 0, remaining);
      Atomics.store(this.wake, 0, 0);
    }
  }
}

export class StateChannel {
  private readonly wake = new Int32Array(new SharedArrayBuffer(4));
  private readonly port: MessagePort;
  /** For the worker's workerData; `transferList` must go with it. */
  readonly wiring: StateWiring;
  readonly transferList: TransferListItem[];

  /** `onFailure` hears every store failure (docs/scripts.md: logged, and a script error for the script). */
  constructor(private readonly onFailure: (message: string) => void = () => undefined) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.wiring = { signal: this.wake.buffer as SharedArrayBuffer, statePort: port2 };
    this.transferList = [port2];
  }

  /** Answers a worker's question from `store` (undefined: the run is gone, so the answer is a failure). */
  serve(store: FlowStore | undefined, message: StateMessage): void {
    if (!store) {
      this.answer({ seq: message.seq, ok: false, message: 'script already released' });
      return;
    }
    callStore(store, message.op, message.flowId, message.args).then(
      (value) => this.answer({ seq: message.seq, ok: true, value }),
      (err: unknown) => {
        const text = errorText(err);
        this.onFailure(`flow state ${message.op} failed: ${text}`);
        this.answer({ seq: message.seq, ok: false, message: text });
      },
    );
  }

  private answer(answer: StateAnswer): void {
    this.port.postMessage(answer);
    Atomics.store(this.wake, 0, 1);
    Atomics.notify(this.wake, 0);
  }

  close(): void {
    this.port.close();
  }
}

function callStore(store: FlowStore, op: StateOp, flowId: string, args: unknown[]): Promise<unknown> {
  try {
    switch (op) {
      case 'get':
        return store.get(flowId, String(args[0]));
      case 'set':
        return store.set(flowId, String(args[0]), args[1]);
      case 'exists':
        return store.exists(flowId, String(args[0]));
      case 'delete':
        return store.delete(flowId, String(args[0]));
      case 'incrBy':
        return store.incrBy(flowId, String(args[0]), Number(args[1]));
      case 'cas':
        return store.cas(flowId, String(args[0]), args[1], args[2]);
      case 'expireFlow':
        return store.expireFlow(flowId, Number(args[0]));
      case 'expireKey':
        return store.expireKey(flowId, String(args[0]), Number(args[1]));
      case 'clear':
        return store.clear(flowId);
    }
  } catch (err) {
    return Promise.reject(err);
  }
}
