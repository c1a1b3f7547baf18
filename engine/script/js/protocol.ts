/**
 * Messages between the script host (main thread) and its sandbox workers: the calls of one
 * event-loop turn travel as one string, the answers likewise, and a function's source crosses
 * once per worker, then only its number.
 */

/** The workers' wasm memory ceiling unless the host sets one; here, not in sandbox.ts, so the host loads no QuickJS. */
export const DEFAULT_MEMORY_LIMIT = 256 * 1024 * 1024;

/** The places user JavaScript runs: mountebank's four hooks, and `svc` for `_svc.script` (engine/script/svc). */
export type HookKind = 'inject' | 'predicate' | 'decorate' | 'wait' | 'svc';

export interface RunMessage {
  id: number;
  scope: number;
  kind: HookKind;
  source: string;
  /** `config.request` as JSON text (parsed inside the sandbox, never crossing as an object graph). */
  request: string;
  /** decorate, and svc in the decorate placement: the response, as JSON text. */
  response?: string;
  /** svc only: `{placement, flowId, stub}` as JSON text. */
  meta?: string;
  /** Epoch milliseconds; the sandbox interrupts the script there. */
  deadline: number;
  timeoutMs: number;
}

/** A worker's note that it grew past its memory bound (engine/script/worker-memory.ts): replace it once idle. */
export interface GrownMessage {
  type: 'grown';
}

export const GROWN: GrownMessage = { type: 'grown' };

/** `logger.<level>(...)` calls made by the script, already formatted to strings per argument. */
export type LogLine = [level: 'debug' | 'info' | 'warn' | 'error', args: string[]];

/** `too-large`: the result is over the scripted-body cap (MAX_SCRIPTED_BODY_BYTES) and was not taken out of the sandbox. */
export type FailureKind = 'compile' | 'runtime' | 'loop-bound' | 'recursion' | 'memory' | 'backend' | 'too-large';

export type RunOutcome =
  /** `json` is the hook's result as JSON text, '' for undefined. */
  { ok: true; json: string } | { ok: false; timeout: true; message: string } | { ok: false; timeout: false; kind: FailureKind; message: string };

/**
 * The wire: one string per batch, made of length-prefixed fields `<length>:<text>`. postMessage
 * copies a string in one go; arrays and objects go through the structured-clone serializer, which
 * measured 3-6x slower per message here. JSON payloads (request, response, result) are carried
 * as they are, never escaped or parsed on the way.
 */
class FieldWriter {
  private text = '';

  add(value: string | number): this {
    const part = typeof value === 'number' ? String(value) : value;
    this.text += `${part.length}:${part}`;
    return this;
  }

  take(): string {
    const text = this.text;
    this.text = '';
    return text;
  }

  get empty(): boolean {
    return this.text === '';
  }
}

class FieldReader {
  private at = 0;

  constructor(private readonly text: string) {}

  get more(): boolean {
    return this.at < this.text.length;
  }

  next(): string {
    const colon = this.text.indexOf(':', this.at);
    const length = Number(this.text.slice(this.at, colon));
    this.at = colon + 1 + length;
    return this.text.slice(colon + 1, this.at);
  }

  number(): number {
    return Number(this.next());
  }
}

const RUN = 'r';
const SOURCE = 's';
const FORGET = 'f';
const FORGET_SOURCES = 'c';

/** Host side: the messages of one event-loop turn for one worker. */
export class WireBatch {
  private readonly writer = new FieldWriter();

  get empty(): boolean {
    return this.writer.empty;
  }

  /** Teaches the worker a function source under a number, before runs refer to it. */
  source(sourceId: number, source: string): void {
    this.writer.add(SOURCE).add(sourceId).add(source);
  }

  run(message: RunMessage, sourceId: number): void {
    this.writer
      .add(RUN)
      .add(message.id)
      .add(message.scope)
      .add(message.kind)
      .add(sourceId)
      .add(message.request)
      .add(message.response ?? '')
      .add(message.deadline)
      .add(message.timeoutMs)
      .add(message.meta ?? '');
  }

  forget(scope: number): void {
    this.writer.add(FORGET).add(scope);
  }

  forgetSources(): void {
    this.writer.add(FORGET_SOURCES);
  }

  take(): string {
    return this.writer.take();
  }
}

/** What a worker does with the entries of a batch. */
export interface WireHandlers {
  run(message: RunMessage): void;
  forget(scope: number): void;
}

/** Worker side: resolves source numbers against the sources seen so far and dispatches a batch. */
export function createWireReader(handlers: WireHandlers): (batch: string) => void {
  const sources = new Map<number, string>();
  return (batch) => {
    const reader = new FieldReader(batch);
    while (reader.more) {
      const op = reader.next();
      if (op === SOURCE) {
        const sourceId = reader.number();
        sources.set(sourceId, reader.next());
      } else if (op === FORGET) {
        handlers.forget(reader.number());
      } else if (op === FORGET_SOURCES) {
        sources.clear();
      } else {
        const id = reader.number();
        const scope = reader.number();
        const kind = reader.next() as HookKind;
        const source = sources.get(reader.number())!;
        const request = reader.next();
        const response = reader.next();
        const run: RunMessage = { id, scope, kind, source, request, deadline: reader.number(), timeoutMs: reader.number() };
        const meta = reader.next();
        if (kind === 'decorate' || (kind === 'svc' && response !== '')) run.response = response;
        if (kind === 'svc') run.meta = meta;
        handlers.run(run);
      }
    }
  };
}

const OK = 0;
const TIMEOUT = 1;
const FAILED = 2;

/** Worker side: answers collected until the next flush. */
export class ReplyBatch {
  private readonly writer = new FieldWriter();

  add(id: number, outcome: RunOutcome, logs: LogLine[]): void {
    this.writer.add(id);
    if (outcome.ok) this.writer.add(OK).add(outcome.json).add('');
    else if (outcome.timeout) this.writer.add(TIMEOUT).add(outcome.message).add('');
    else this.writer.add(FAILED).add(outcome.message).add(outcome.kind);
    this.writer.add(logs.length > 0 ? JSON.stringify(logs) : '');
  }

  get empty(): boolean {
    return this.writer.empty;
  }

  take(): string {
    return this.writer.take();
  }
}

export interface Reply {
  id: number;
  outcome: RunOutcome;
  logs: LogLine[] | undefined;
}

/** Host side: every answer of a reply batch. */
export function readReplies(batch: string): Reply[] {
  const reader = new FieldReader(batch);
  const replies: Reply[] = [];
  while (reader.more) {
    const id = reader.number();
    const code = reader.number();
    const text = reader.next();
    const kind = reader.next() as FailureKind;
    const logsText = reader.next();
    const logs = logsText === '' ? undefined : (JSON.parse(logsText) as LogLine[]);
    const outcome: RunOutcome =
      code === OK
        ? { ok: true, json: text }
        : code === TIMEOUT
          ? { ok: false, timeout: true, message: text }
          : { ok: false, timeout: false, kind, message: text };
    replies.push({ id, outcome, logs });
  }
  return replies;
}
