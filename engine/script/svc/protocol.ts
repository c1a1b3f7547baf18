/**
 * Messages between the `_svc.script` runner (main thread) and its worker threads. Runs travel as
 * structured-clone objects on the worker's port; a script's state operations go back the same way
 * and their answers come on a second port the worker reads synchronously (receiveMessageOnPort)
 * after an Atomics wake-up, so `ctx.state` calls are synchronous to the script.
 */
import type { ScriptResult } from './results.js';
import type { LogLevel, Placement, ScriptRequestData, ScriptResponseData, StateMessage, StubInfo } from '../shared/index.js';

// The wire shapes both engines share live in ../protocol.ts; re-exported for this room's files.
export type { Placement, ScriptRequestData, ScriptResponseData, StateAnswer, StateMessage, StubInfo } from '../shared/index.js';

/** What one script run is given, whichever engine runs it. */
export interface ScriptInput {
  source: string;
  placement: Placement;
  request: ScriptRequestData;
  response?: ScriptResponseData;
  flowId: string;
  stub: StubInfo;
}

export interface RunMessage extends ScriptInput {
  type: 'run';
  id: number;
  /** Epoch milliseconds: the script is interrupted there. */
  deadline: number;
  /** Set by an engine thread (its link's runs): the imposter whose store `ctx.state` reaches on main. */
  scope?: number;
}

/** Why a run failed, as the `error_type` of `svc_script_errors_total`. */
export type ScriptErrorType = 'compile' | 'runtime' | 'limit' | 'backend' | 'timeout' | 'host';

export type RunOutcome = { ok: true; result?: ScriptResult; value?: unknown } | { ok: false; errorType: ScriptErrorType; message: string };

export interface DoneMessage {
  type: 'done';
  id: number;
  outcome: RunOutcome;
  logs: Array<[LogLevel, string]>;
  /** The worker grew past its memory bound during the run: replace it (engine/script/worker-memory.ts). */
  grown: boolean;
}

/** From a worker: a batch's answers (one array per batch, engine/script/svc/worker.ts), or a `ctx.state` question. */
export type WorkerMessage = DoneMessage[] | StateMessage;
