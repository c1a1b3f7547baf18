import { isObject } from '../../model/index.js';
import { weakCertificateReasons } from '../../transport/index.js';

/**
 * One line per proxy response whose client certificate OpenSSL's default security level would refuse
 * (svc presents it anyway): "stub 0 response 1: proxy cert: 1024-bit rsa key". Stubs before `from` are not read.
 */
export function weakProxyCertificates(stubs: ReadonlyArray<Record<string, unknown>>, from = 0): string[] {
  const lines: string[] = [];
  for (let s = from; s < stubs.length; s++) {
    const stub = stubs[s]!;
    const responses = Array.isArray(stub.responses) ? stub.responses : [];
    responses.forEach((response: unknown, r) => {
      const proxy = isObject(response) ? response.proxy : undefined;
      if (!isObject(proxy) || typeof proxy.cert !== 'string') return;
      const reasons = weakCertificateReasons(proxy.cert);
      if (reasons.length > 0) lines.push(`stub ${s} response ${r}: proxy cert: ${reasons.join(', ')}`);
    });
  }
  return lines;
}
