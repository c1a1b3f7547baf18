/**
 * Inject rules: the rule's JavaScript function runs in the sandbox (engine/script/js, one sandbox
 * per intercept session) with the intercepted request, and its `{statusCode, headers, body}` is
 * served. Failures answer as a stub's inject does (docs/errors.md): 400 `invalid injection`, 504 on timeout.
 */
import type { IncomingMessage } from 'node:http';
import { isObject } from '../../engine/model/index.js';
import { scriptFailure } from '../../engine/respond/index.js';
import type { JsScriptHost } from '../../engine/script/js/index.js';

export interface InjectedAnswer {
  statusCode: number;
  headers: Array<[string, string]>;
  body: Buffer;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** The request as the function sees it: mountebank's request fields plus the target `host`. */
async function scriptRequest(request: IncomingMessage, host: string, path: string): Promise<Record<string, unknown>> {
  const url = new URL(path, 'http://intercepted');
  return {
    method: request.method ?? 'GET',
    host,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: request.headers,
    body: await readBody(request),
    ip: request.socket.remoteAddress,
  };
}

/** The function's result as an HTTP answer: a non-string body is JSON (with a JSON content type). */
export function answerFrom(value: unknown): InjectedAnswer {
  const result = isObject(value) ? value : {};
  const status = Number(result.statusCode ?? 200);
  const headers: Array<[string, string]> = [];
  if (isObject(result.headers)) {
    for (const [name, given] of Object.entries(result.headers)) {
      for (const item of Array.isArray(given) ? given : [given]) if (item !== undefined && item !== null) headers.push([name, String(item)]);
    }
  }
  let body = '';
  if (typeof result.body === 'string') body = result.body;
  else if (result.body !== undefined) {
    body = JSON.stringify(result.body);
    if (!headers.some(([name]) => name.toLowerCase() === 'content-type')) headers.push(['Content-Type', 'application/json']);
  }
  return { statusCode: Number.isInteger(status) && status >= 100 && status <= 999 ? status : 200, headers, body: Buffer.from(body) };
}

export async function runInjectRule(
  scripts: JsScriptHost,
  scope: number,
  source: string,
  request: IncomingMessage,
  host: string,
  path: string,
): Promise<InjectedAnswer> {
  try {
    return answerFrom(await scripts.inject(scope, source, await scriptRequest(request, host, path)));
  } catch (err) {
    const failure = scriptFailure(err, 'response');
    if (!failure) throw err;
    return failure;
  }
}
