/**
 * `svc script eval` with the JavaScript engine: the script runs in the same QuickJS sandbox as a
 * served `_svc.script` (the script is the body of `function (ctx)`), with an in-memory flow store.
 * A result constructor prints as the Rhai path prints it; any other returned value prints as JSON.
 */
import { createJsScriptHost, ScriptError, ScriptTimeoutError } from '../../engine/script/js/index.js';
import { HttpResult, jsOutcomeOf, type ScriptResult } from '../../engine/script/svc/index.js';
import { MemoryFlowStore } from '../../engine/state/index.js';
import type { Logger } from '../../engine/log/index.js';
import type { RequestFile } from './ctx.js';

function stderrLogger(): Logger {
  const write = (message: string): void => void process.stderr.write(`${message}\n`);
  return { debug: write, info: write, warn: write, error: write, isEnabled: () => true, recent: () => [] };
}

function printable(result: ScriptResult): unknown {
  switch (result.kind) {
    case 'http': {
      const http = new HttpResult(result.status, result.body);
      for (const [name, value] of result.headers) http.header(name, value);
      return http.toJSON();
    }
    case 'delay':
      return { delay: result.ms };
    case 'reset':
      return { reset: true };
    case 'pass':
      return { pass: true };
  }
}

export async function evalJavaScript(file: string, source: string, request: RequestFile | undefined, deadlineMs: number): Promise<number> {
  const host = createJsScriptHost({ log: stderrLogger(), workers: 1 });
  const store = new MemoryFlowStore({ ttlSeconds: 300 });
  const body = request?.body === undefined || request.body === null ? '' : typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
  try {
    const value = await host.svc(
      0,
      source,
      {
        placement: 'respond',
        request: {
          method: (request?.method ?? 'GET').toUpperCase(),
          path: request?.path ?? '/',
          query: request?.query ?? {},
          pathParams: request?.pathParams ?? {},
          headers: request?.headers ?? {},
          body,
        },
        flowId: 'cli',
        stub: {},
        store,
      },
      { timeoutMs: deadlineMs },
    );
    const tagged = value !== null && typeof value === 'object' && '__svc' in value;
    const outcome = tagged ? jsOutcomeOf('respond', value) : undefined;
    if (outcome && !outcome.ok) {
      process.stderr.write(`${file}: ${outcome.errorType} error: ${outcome.message}\n`);
      return 1;
    }
    process.stdout.write(`${JSON.stringify(outcome?.ok && outcome.result ? printable(outcome.result) : (value ?? null))}\n`);
    return 0;
  } catch (err) {
    if (err instanceof ScriptTimeoutError) process.stderr.write(`${file}: timeout error: ${err.message}\n`);
    else if (err instanceof ScriptError) process.stderr.write(`${file}: ${err.kind} error: ${err.message}\n`);
    else throw err;
    return 1;
  } finally {
    await host.close();
    await store.close();
  }
}
