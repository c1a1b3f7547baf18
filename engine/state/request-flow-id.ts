import { resolveFlowId, type FlowIdSource } from './flow-store.js';

/**
 * The flow id of a request whose headers keep their sent spelling (MockRequest, RecordedRequest):
 * the header is looked up case-insensitively, then `resolveFlowId` applies (port fallback).
 */
export function requestFlowId(source: FlowIdSource, port: number, headers: Record<string, string | string[]>): string {
  if (source.kind === 'port') return String(port);
  const wanted = source.name.toLowerCase();
  for (const name in headers) {
    if (name.toLowerCase() === wanted) return resolveFlowId(source, port, { [wanted]: headers[name] });
  }
  return String(port);
}
