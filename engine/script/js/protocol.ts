/** Messages between the script host (main thread) and its sandbox workers. */

/** The four places user JavaScript runs, each with mountebank's function signature. */
export type HookKind = 'inject' | 'predicate' | 'decorate' | 'wait';

export interface RunMessage {
  type: 'run';
  id: number;
  scope: number;
  kind: HookKind;
  source: string;
  /** `config.request` as JSON text (parsed inside the sandbox, never crossing as an object graph). */
  request: string;
  /** decorate only: the response being decorated, as JSON text. */
  response?: string;
  /** Epoch milliseconds; the sandbox interrupts the script there. */
  deadline: number;
  timeoutMs: number;
}

export interface ForgetMessage {
  type: 'forget';
  scope: number;
}

export type HostMessage = RunMessage | ForgetMessage;

/** `logger.<level>(...)` calls made by the script, already formatted to strings per argument. */
export type LogLine = [level: 'debug' | 'info' | 'warn' | 'error', args: string[]];

export type RunOutcome =
  /** `json` is `{"value": ...}`: the hook's result as JSON text. */
  | { ok: true; json: string }
  | { ok: false; timeout: true; message: string }
  | { ok: false; timeout: false; kind: 'compile' | 'runtime' | 'loop-bound' | 'recursion' | 'memory'; message: string };

export type RunReply = RunOutcome & { type: 'result'; id: number; logs: LogLine[] };
