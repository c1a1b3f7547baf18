export { compileProxy, type CompiledProxy } from './compile.js';
export { proxyProblems } from './validate.js';
export { callUpstream, proxiedRequest, proxyPredicates, recordProxyResponse, type ProxyObserver } from './run.js';
export { recordOnce } from './once.js';
export { isRecordedProxyResponse, type StubStore } from './record.js';
export { ProxyError } from './upstream.js';
export { weakProxyCertificates } from './weak-tls.js';
