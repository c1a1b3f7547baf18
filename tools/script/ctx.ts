/**
 * What `svc script eval --request` needs beyond the engine's `ctx` (engine/script/svc): the request
 * read from a JSON file, and a synchronous in-memory flow store standing in for the imposter's.
 */
import { buildCtx, type StateCall } from '../../engine/script/svc/index.js';

export interface RequestFile {
  method?: string;
  path?: string;
  query?: Record<string, string | string[]>;
  headers?: Record<string, string | string[]>;
  /** Raw body text; a JSON object/array is accepted and serialised. */
  body?: unknown;
  pathParams?: Record<string, string>;
}

interface Entry {
  value: unknown;
  expires: number;
}

const TTL_MS = 300_000;

/** An in-memory store for one CLI run; writes stamp expiry at now + 300 s (docs/flow-state.md rule 4). */
export function memoryState(): StateCall {
  const flows = new Map<string, Map<string, Entry>>();
  const live = (flowId: string): Map<string, Entry> => {
    let m = flows.get(flowId);
    if (!m) flows.set(flowId, (m = new Map()));
    for (const [k, e] of m) if (e.expires <= Date.now()) m.delete(k);
    return m;
  };
  const write = (flowId: string, key: string, value: unknown): void => void live(flowId).set(key, { value, expires: Date.now() + TTL_MS });
  return (flowId, op, args) => {
    const m = live(flowId);
    const key = String(args[0]);
    switch (op) {
      case 'get':
        return m.get(key)?.value;
      case 'set':
        return write(flowId, key, args[1]);
      case 'exists':
        return m.has(key);
      case 'delete':
        return m.delete(key);
      case 'incrBy': {
        const current = m.get(key)?.value ?? 0;
        if (typeof current !== 'number') throw new Error(`state: value of '${key}' is not a number`);
        write(flowId, key, current + Number(args[1]));
        return current + Number(args[1]);
      }
      case 'cas': {
        const current = m.get(key)?.value ?? null;
        if (JSON.stringify(current) !== JSON.stringify(args[1])) return { applied: false, current };
        write(flowId, key, args[2]);
        return { applied: true };
      }
      case 'expireFlow':
        for (const [k, e] of m) {
          e.expires = Date.now() + Number(args[0]) * 1000;
          if (Number(args[0]) <= 0) m.delete(k);
        }
        return undefined;
      case 'expireKey': {
        const e = m.get(key);
        if (!e) return false;
        if (Number(args[1]) <= 0) m.delete(key);
        else e.expires = Date.now() + Number(args[1]) * 1000;
        return true;
      }
      case 'clear':
        return void m.clear();
    }
  };
}

export function cliCtx(req: RequestFile, state: StateCall, flowId: string, log: (line: string) => void): Record<string, unknown> {
  const body = req.body === undefined || req.body === null ? '' : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
  return buildCtx({
    request: {
      method: (req.method ?? 'GET').toUpperCase(),
      path: req.path ?? '/',
      query: req.query ?? {},
      pathParams: req.pathParams ?? {},
      headers: req.headers ?? {},
      body,
    },
    flowId,
    state,
    log: (level, message) => log(`[svc::script] ${level.toUpperCase()} ${message}`),
  });
}
