import { resolveFlowId, type FlowIdSource } from './flow-store.js';

/**
 * The first value of a header in a map that keeps sent spellings (MockRequest, RecordedRequest),
 * looked up case-insensitively; undefined when absent or empty.
 */
export function headerFlowId(name: string, headers: Record<string, string | string[]>): string | undefined {
  const wanted = name.toLowerCase();
  for (const sent in headers) {
    if (sent.toLowerCase() !== wanted) continue;
    const value = headers[sent];
    const first = Array.isArray(value) ? value[0] : value;
    return first === undefined || first === '' ? undefined : first;
  }
  return undefined;
}

/** The flow id of a request whose headers keep their sent spelling: `resolveFlowId` (port fallback). */
export function requestFlowId(source: FlowIdSource, port: number, headers: Record<string, string | string[]>): string {
  if (source.kind === 'port') return String(port);
  return resolveFlowId(source, port, { [source.name.toLowerCase()]: headerFlowId(source.name, headers) });
}
