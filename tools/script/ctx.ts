/**
 * The `ctx` object of SPEC §2.7 for trying scripts from the command line: the request read from a
 * JSON file, an in-memory flow store, and a logger writing to stderr.
 */

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

const DEFAULT_TTL_SECONDS = 300;

/** In-memory flow store; every write stamps expiry at now + TTL (SPEC §2.8 rule 4). */
export class MemoryFlowStore {
  private readonly flows = new Map<string, Map<string, Entry>>();

  constructor(private readonly ttlSeconds = DEFAULT_TTL_SECONDS) {}

  handle(flowId: string): Record<string, (...args: any[]) => unknown> {
    const live = (): Map<string, Entry> => {
      let m = this.flows.get(flowId);
      if (!m) this.flows.set(flowId, (m = new Map()));
      const now = Date.now();
      for (const [k, e] of m) if (e.expires <= now) m.delete(k);
      return m;
    };
    const write = (key: string, value: unknown): void => {
      live().set(key, { value, expires: Date.now() + this.ttlSeconds * 1000 });
    };
    const incrBy = (key: string, n: number): number => {
      const cur = live().get(key)?.value ?? 0;
      if (typeof cur !== 'number') throw new Error(`state: value of '${key}' is not a number`);
      write(key, cur + n);
      return cur + n;
    };
    return {
      get: (key: string) => live().get(key)?.value ?? null,
      get_or: (key: string, dflt: unknown) => (live().has(key) ? live().get(key)!.value : dflt),
      set: (key: string, value: unknown) => void write(key, value),
      exists: (key: string) => live().has(key),
      delete: (key: string) => live().delete(key),
      incr: (key: string) => incrBy(key, 1),
      incr_by: (key: string, n: number) => incrBy(key, n),
      cas: (key: string, expected: unknown, next: unknown) => {
        const m = live();
        const current = m.get(key)?.value ?? null;
        if (JSON.stringify(current) !== JSON.stringify(expected)) return { applied: false, current };
        write(key, next);
        return { applied: true };
      },
      ttl: (keyOrSeconds: string | number, seconds?: number) => {
        const m = live();
        if (typeof keyOrSeconds === 'number') {
          for (const e of m.values()) e.expires = Date.now() + keyOrSeconds * 1000;
          for (const [k, e] of m) if (e.expires <= Date.now()) m.delete(k);
          return null;
        }
        const e = m.get(keyOrSeconds);
        if (!e) return false;
        if ((seconds ?? 0) <= 0) m.delete(keyOrSeconds);
        else e.expires = Date.now() + (seconds ?? 0) * 1000;
        return true;
      },
      clear: () => void live().clear(),
    };
  }
}

function lowerKeys(h: Record<string, string | string[]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(h)) out[k.toLowerCase()] = v;
  return out;
}

export function buildCtx(req: RequestFile, store: MemoryFlowStore, flowId: string, log: (line: string) => void): Record<string, unknown> {
  const headers = lowerKeys(req.headers ?? {});
  const body = req.body === undefined || req.body === null ? '' : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
  const request: Record<string, unknown> = {
    method: (req.method ?? 'GET').toUpperCase(),
    path: req.path ?? '/',
    query: req.query ?? {},
    pathParams: req.pathParams ?? {},
    headers,
    body,
    header: (name: string) => {
      const v = headers[String(name).toLowerCase()];
      return Array.isArray(v) ? v[0] : (v ?? null);
    },
  };
  try {
    if (body !== '') request.json = JSON.parse(body) as unknown;
  } catch {
    // Not JSON: `json` stays absent, as the spec says.
  }
  const logger: Record<string, (msg: unknown) => void> = {};
  for (const level of ['debug', 'info', 'warn', 'error']) {
    logger[level] = (msg: unknown) => log(`[svc::script] ${level.toUpperCase()} ${typeof msg === 'string' ? msg : JSON.stringify(msg)}`);
  }
  return {
    request,
    state: store.handle(flowId),
    store: { flow: (id: unknown) => store.handle(String(id)) },
    flowId,
    logger,
  };
}
