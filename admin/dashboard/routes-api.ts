import { type ImposterManager, type RecordedRequest, requestOfRecord } from '../../engine/manager/index.js';
import { errors, toMockRequest, type MockRequest } from '../../engine/model/index.js';
import { type AdminReply, type AdminRequest, type Router, objectBody, portParam } from '../http/index.js';

/** JSON without the admin API's indentation: a page of 10,000 entries is a third smaller and faster to write. */
function compact(body: unknown): AdminReply {
  return { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8' }, text: JSON.stringify(body) };
}

function sinceOf(req: AdminRequest): number {
  const raw = req.query.get('since') ?? '0';
  if (!/^\d+$/.test(raw)) throw errors.badData(`'since' must be a non-negative integer, got '${raw}'`);
  return Number(raw);
}

/**
 * What a list row shows of a recorded request: a tenth of its size (no headers, body or `tried`), so a
 * page opening on 10,000 requests downloads and parses little; the row's detail reads the whole entry.
 */
function summaryOf(record: RecordedRequest): Record<string, unknown> {
  const outcome = record.matchOutcome;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(record.query ?? {})) {
    for (const one of Array.isArray(value) ? value : [value]) query.append(name, String(one));
  }
  return {
    timestamp: record.timestamp,
    method: record.method,
    path: record.path,
    query: query.toString(),
    status: record.status,
    latencyMs: record.latencyMs,
    matchOutcome: outcome && { matched: outcome.matched, stubIndex: outcome.stubIndex, stubId: outcome.stubId },
  };
}

/** The request a test-request form describes, read exactly as the imposter port reads one off the wire. */
function formRequest(body: Record<string, unknown>, req: AdminRequest): MockRequest {
  const method = typeof body.method === 'string' && body.method !== '' ? body.method.toUpperCase() : 'GET';
  const url = typeof body.url === 'string' && body.url.startsWith('/') ? body.url : `/${String(body.url ?? '')}`;
  const rawHeaders: string[] = [];
  const headers = body.headers !== null && typeof body.headers === 'object' ? (body.headers as Record<string, unknown>) : {};
  for (const [name, value] of Object.entries(headers)) rawHeaders.push(name, String(value));
  const text = typeof body.body === 'string' ? body.body : '';
  return toMockRequest({
    method,
    url,
    httpVersion: '1.1',
    rawHeaders,
    body: Buffer.from(text, 'utf8'),
    remoteAddress: req.raw.socket.remoteAddress ?? '127.0.0.1',
    remotePort: req.raw.socket.remotePort ?? 0,
  });
}

/**
 * The page's own reads beyond the admin API: the journal with each entry's stable index and flow id
 * (what the event stream carries, so a reconciled entry looks like a streamed one), and the near-miss
 * explanation of a recorded request (`{index}`) or of a test request (`{method, url, headers, body}`),
 * which goes through the imposter's debug matching without entering its journal or counts.
 */
export function dashboardApiRoutes(router: Router, manager: ImposterManager): void {
  router.on('GET', '/_dashboard/api/imposters/:port/requests', (req) => {
    const imposter = manager.require(portParam(req));
    const since = sinceOf(req);
    const brief = req.query.get('fields') === 'summary';
    const page = imposter.journal.page(since, () => true);
    return compact({
      nextIndex: page.nextIndex,
      truncated: page.truncated,
      numberOfRequests: imposter.numberOfRequests,
      entries: page.entries.map((entry) => ({
        index: entry.index,
        flowId: imposter.flowIdOf(entry.value),
        request: brief ? summaryOf(entry.value) : entry.value,
      })),
    });
  });
  router.on('GET', '/_dashboard/api/imposters/:port/requests/:index', (req) => {
    const imposter = manager.require(portParam(req));
    const index = Number(req.params.index);
    const entry = imposter.journal.all().find((e) => e.index === index);
    if (!entry) throw errors.noSuchResource(`request ${req.params.index} is no longer recorded on imposter ${imposter.port}`);
    return { status: 200, body: { index, flowId: imposter.flowIdOf(entry.value), request: entry.value } };
  });
  router.on('POST', '/_dashboard/api/imposters/:port/explain', async (req) => {
    const imposter = manager.require(portParam(req));
    const body = objectBody(req);
    let request: MockRequest;
    if (typeof body.index === 'number') {
      const entry = imposter.journal.all().find((e) => e.index === body.index);
      if (!entry) throw errors.noSuchResource(`request ${body.index} is no longer recorded on imposter ${imposter.port}`);
      request = requestOfRecord(entry.value as RecordedRequest);
    } else {
      request = formRequest(body, req);
    }
    return { status: 200, body: await imposter.explain(request) };
  });
}
