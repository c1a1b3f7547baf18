import { type ImposterManager, parseClauses } from '../../engine/manager/index.js';
import { errors } from '../../engine/model/index.js';
import { type AdminRequest, type Router, portParam } from '../http/index.js';
import type { EventHub } from './event-hub.js';
import type { EventFilter } from './sse-subscriber.js';

const TYPES = new Set(['requests', 'lifecycle']);

function filterOf(req: AdminRequest, fixedPort?: number): EventFilter {
  const typesParam = fixedPort === undefined ? req.query.get('types') : 'requests';
  const types = typesParam === null ? [...TYPES] : typesParam.split(',').map((t) => t.trim());
  const unknown = types.filter((t) => !TYPES.has(t));
  if (unknown.length > 0 || types.length === 0) {
    throw errors.badData(`'types' must be a comma list of requests, lifecycle; got '${typesParam}'`);
  }
  let port: number | null = fixedPort ?? null;
  const portText = req.query.get('port');
  if (fixedPort === undefined && portText !== null) {
    if (!/^\d+$/.test(portText) || Number(portText) > 65535) throw errors.badData(`'port' must be a port number, got '${portText}'`);
    port = Number(portText);
  }
  const clauses = parseClauses(req.query.getAll('match'));
  if (typeof clauses === 'string') throw errors.badData(clauses);
  return { requests: types.includes('requests'), lifecycle: types.includes('lifecycle'), port, clauses };
}

/** `GET /events` and its per-imposter alias (docs/metrics-and-events.md, §6); gated by the admin plane like any route. */
export function eventRoutes(router: Router, manager: ImposterManager, hub: EventHub): void {
  router.on('GET', '/events', (req, response) => {
    hub.subscribe(response, filterOf(req));
  });
  router.on('GET', '/imposters/:port/savedRequests/stream', (req, response) => {
    const port = manager.require(portParam(req)).port;
    hub.subscribe(response, filterOf(req, port));
  });
}
