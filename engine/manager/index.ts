export { ImposterManager, type ManagerOptions, type ApplyReport, type StubRef, type SavedRequestsQuery, type SavedRequestsPage } from './imposter-manager.js';
export { Imposter } from './imposter.js';
export type { EngineObserver, LifecycleAction } from './observer.js';
export type { RenderOptions } from './imposter-json.js';
export type { RecordedRequest, MatchOutcome } from './recorded-request.js';
export type { VerifyResult } from './verify.js';
