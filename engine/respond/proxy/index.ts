export { compileProxy, type CompiledProxy } from './compile.js';
export { proxyProblems } from './validate.js';
export { answeredByOwnRecording } from './own-match.js';
export { callUpstream, proxiedRequest, proxyPredicates, recordProxyResponse, type ProxyObserver } from './run.js';
export { recordOnce, type OnceOutcome, type OnceRecording } from './once.js';
export { isRecordedProxyResponse, ownerRecorder, recordingFor, storeRecording, type ProxyMode, type ProxyRecorder, type StubStore } from './record.js';
export { ProxyError } from './upstream.js';
export { weakProxyCertificates } from './weak-tls.js';
