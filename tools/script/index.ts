/**
 * `svc script eval <file> [--engine rhai|javascript] [--request <json-file>] [--deadline-ms <ms>]`
 *
 * Runs a script file and prints the value of its last expression as JSON on stdout. With --request,
 * builds a `ctx` from the request file and calls `respond(ctx)` (or runs the top level with `ctx` in
 * scope when no `respond` is defined), printing the result. `print`/`debug` and `ctx.logger` write to
 * stderr so stdout stays JSON. Exit codes: 0 ok, 1 script error (message with line:column on stderr),
 * 2 usage or I/O error. With the JavaScript engine (`--engine javascript`, or a `.js` file) the script is
 * the body of `function (ctx)` as in a served `_svc.script`: it `return`s its value or defines `respond`.
 */
import { readFile } from 'node:fs/promises';
import { UsageError, errorText } from '../../engine/model/index.js';
import { RhaiEngine, RhaiError, formatJson, type RhaiValue } from '../../engine/script/rhai/index.js';
import { registerResults, scriptEngineNamed, scriptEngineOfFile } from '../../engine/script/svc/index.js';
import { cliCtx, memoryState, type RequestFile } from './ctx.js';
import { evalJavaScript } from './eval-js.js';

const USAGE = 'usage: svc script eval <file> [--engine rhai|javascript] [--request <json-file>] [--deadline-ms <ms>]';
const DEFAULT_DEADLINE_MS = 10_000;

interface EvalArgs {
  file: string;
  engine: string;
  request?: string;
  deadlineMs: number;
}

function parseArgs(argv: string[]): EvalArgs {
  let file: string | undefined;
  let engine: string | undefined;
  let request: string | undefined;
  let deadlineMs = DEFAULT_DEADLINE_MS;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      return v;
    };
    if (a === '--engine') engine = value();
    else if (a === '--request') request = value();
    else if (a === '--deadline-ms') {
      deadlineMs = Number(value());
      if (!Number.isFinite(deadlineMs) || deadlineMs <= 0) throw new UsageError('--deadline-ms must be a positive number');
    } else if (a.startsWith('--')) throw new UsageError(`unknown option ${a}`);
    else if (file === undefined) file = a;
    else throw new UsageError(`unexpected argument ${a}`);
  }
  if (file === undefined) throw new UsageError('missing <file>');
  return { file, engine: engine ?? scriptEngineOfFile(file) ?? 'rhai', request, deadlineMs };
}

export async function scriptCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'eval') {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  let args: EvalArgs;
  try {
    args = parseArgs(rest);
  } catch (e) {
    process.stderr.write(`svc script: ${errorText(e)}\n${USAGE}\n`);
    return 2;
  }
  const engineName = scriptEngineNamed(args.engine);
  if (engineName === undefined) {
    process.stderr.write(`svc script: unknown engine '${args.engine}' (expected rhai or javascript)\n`);
    return 2;
  }

  let source: string;
  let request: RequestFile | undefined;
  try {
    source = await readFile(args.file, 'utf8');
    if (args.request !== undefined) request = JSON.parse(await readFile(args.request, 'utf8')) as RequestFile;
  } catch (e) {
    process.stderr.write(`svc script: ${errorText(e)}\n`);
    return 2;
  }

  if (engineName === 'javascript') return evalJavaScript(args.file, source, request, args.deadlineMs);
  const err = (line: string): void => void process.stderr.write(line + '\n');
  const engine = new RhaiEngine({ print: err, debug: (text, pos) => err(`[${args.file}:${pos.line}:${pos.col}] ${text}`) });
  registerResults(engine);
  try {
    const program = engine.compile(source);
    let value: RhaiValue;
    if (request === undefined) value = program.runRaw({ deadlineMs: args.deadlineMs });
    else {
      const ctx = cliCtx(request, memoryState(), 'cli', err);
      value = program.hasFunction('respond', 1)
        ? program.callRaw('respond', [ctx], { deadlineMs: args.deadlineMs })
        : program.runRaw({ scope: { ctx }, deadlineMs: args.deadlineMs });
    }
    process.stdout.write(formatJson(value) + '\n');
    return 0;
  } catch (e) {
    if (e instanceof RhaiError) {
      err(`${args.file}:${e.line}:${e.column}: ${e.kind} error: ${e.description}`);
      return 1;
    }
    throw e;
  }
}
