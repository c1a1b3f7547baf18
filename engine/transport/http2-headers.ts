/** RFC 9113 §8.2.2: connection-specific fields are malformed in HTTP/2 (node:http2 throws on them). */
export const CONNECTION_SPECIFIC_HEADERS: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);
