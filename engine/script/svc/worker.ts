/**
 * A `_svc.script` worker thread: compiles each source once, runs scripts with `ctx`, and answers
 * `ctx.state` calls by asking the main thread's FlowStore and blocking (Atomics.wait) until the
 * answer is on the state port. The deadline bounds both the script (the interpreter's own check)
 * and every wait for the store.
 */
import { platform, setPriority } from 'node:os';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { RhaiEngine, RhaiError, RhaiTimeoutError, type RhaiProgram } from '../rhai/index.js';
import {
  buildCtx,
  LINK_HELLO,
  type LogLevel,
  type StateCall,
  BackendFailure,
  StateBridge,
  StateTimeout,
  type StateWiring,
  WorkerFootprint,
} from '../shared/index.js';
import type { DoneMessage, RunMessage, RunOutcome, ScriptErrorType } from './protocol.js';
import { registerResults } from './results.js';
import { outcomeOf } from './placement.js';
import { errorText } from '../../model/index.js';
import { hostedThread } from '../../threads/index.js';

/** Lower priority than the serving thread, as the JavaScript sandbox workers. */
const SCRIPT_NICENESS = 5;
/** Compiled sources kept; the oldest go first when stubs churn through many scripts. */
const MAX_PROGRAMS = 1024;
/** A batch's answers so far go back once it has run this long (the rest follow at its end). */
const FLUSH_MS = 2;

const port = parentPort!;
// ctx.state: every question goes to the host, which owns the stores (a linked run's names its imposter).
const bridge = new StateBridge((message) => port.postMessage(message), workerData as StateWiring);
if (platform() === 'linux') setPriority(SCRIPT_NICENESS);

let logs: Array<[LogLevel, string]> = [];
const engine = new RhaiEngine({
  print: (text) => logs.push(['info', text]),
  debug: (text, pos) => logs.push(['debug', `[${pos.line}:${pos.col}] ${text}`]),
});
registerResults(engine);
const programs = new Map<string, RhaiProgram | RhaiError>();
const footprint = new WorkerFootprint();

function programOf(source: string): RhaiProgram | RhaiError {
  let program = programs.get(source);
  if (program === undefined) {
    try {
      program = engine.compile(source);
    } catch (err) {
      if (!(err instanceof RhaiError)) throw err;
      program = err;
    }
    if (programs.size >= MAX_PROGRAMS) programs.delete(programs.keys().next().value as string);
    programs.set(source, program);
  }
  return program;
}

function failure(errorType: ScriptErrorType, message: string): RunOutcome {
  return { ok: false, errorType, message };
}

function errorTypeOf(err: RhaiError, backendFailed: boolean): ScriptErrorType {
  if (err.kind === 'parse') return 'compile';
  if (err.kind === 'limit') return 'limit';
  return backendFailed ? 'backend' : 'runtime';
}

function run(message: RunMessage): RunOutcome {
  const program = programOf(message.source);
  if (program instanceof RhaiError) return failure('compile', program.message);
  let backendFailed = false;
  let stateTimedOut = false;
  const state: StateCall = (flowId, op, args) => {
    try {
      return bridge.call(message.id, message.deadline, flowId, op, args, message.scope);
    } catch (err) {
      if (err instanceof StateTimeout) stateTimedOut = true;
      if (err instanceof BackendFailure) backendFailed = true;
      throw err;
    }
  };
  const ctx = buildCtx({ ...message, state, log: (level, text) => logs.push([level, text]) });
  // A placement is named by its entry point.
  const entry = message.placement;
  const deadlineMs = Math.max(0, message.deadline - Date.now());
  try {
    const value = program.hasFunction(entry, 1) ? program.call(entry, [ctx], { deadlineMs }) : program.run({ scope: { ctx }, deadlineMs });
    return outcomeOf(message.placement, value);
  } catch (err) {
    if (err instanceof RhaiTimeoutError || stateTimedOut) return failure('timeout', `script exceeded its deadline`);
    if (err instanceof RhaiError) return failure(errorTypeOf(err, backendFailed), err.message);
    return failure('runtime', errorText(err));
  }
}

/**
 * Runs a batch from one sender (the host, or an engine thread's link); the answers go back to it
 * together, one message per batch (its fixed cost, a structured clone and a wake-up of the sender,
 * is paid once), or sooner when the batch has run FLUSH_MS so a slow script does not hold the
 * answers of those before it. A run whose deadline passed while it waited is not started.
 */
function runBatch(batch: RunMessage[], post: (message: unknown) => void): boolean {
  let grown = false;
  let answers: DoneMessage[] = [];
  let since = Date.now();
  // The footprint is read once per message of answers, not per run: the host acts on it only once
  // this worker owes nothing, and a run cannot outgrow its own memory budget meanwhile.
  const send = () => {
    grown = footprint.grown();
    answers[answers.length - 1]!.grown = grown;
    post(answers);
    answers = [];
  };
  for (const message of batch) {
    logs = [];
    let outcome: RunOutcome;
    if (Date.now() >= message.deadline) outcome = failure('timeout', 'script exceeded its deadline');
    else {
      try {
        outcome = run(message);
      } catch (err) {
        outcome = failure('host', `script worker failure: ${errorText(err)}`);
      }
    }
    answers.push({ type: 'done', id: message.id, outcome, logs, grown: false });
    const now = Date.now();
    if (now - since >= FLUSH_MS) {
      send();
      since = now;
    }
  }
  if (answers.length > 0) send();
  return grown;
}

/** An engine thread's direct link (engine/threads/links.ts): batches as from the host, answered on the link. */
function link(linkPort: MessagePort): void {
  const post = (message: unknown) => linkPort.postMessage(message);
  // The host replaces a grown worker: it hears of growth from a linked run here.
  linkPort.on('message', (batch: RunMessage[]) => {
    if (runBatch(batch, post)) port.postMessage({ type: 'grown' });
  });
  // The engine thread posts its runs once it hears this (engine/script/shared/worker-links.ts).
  linkPort.postMessage(LINK_HELLO);
}

// A batch from the host, or a link to an engine thread.
port.on('message', (batch: RunMessage[] | { link: MessagePort }) => {
  if (Array.isArray(batch)) runBatch(batch, (message) => port.postMessage(message));
  else link(batch.link);
});
hostedThread().ready();
