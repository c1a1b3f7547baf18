export {
  ImposterManager,
  type ConfigReplica,
  type SharedImposter,
  type ApplyShared,
  type ManagerOptions,
  type PersistenceHooks,
  type ApplyReport,
  type StubRef,
  type SavedRequestsQuery,
  type SavedRequestsPage,
  type CallOptions,
  type StubEditOptions,
  type CreateOptions,
  type ParseOptions,
  type AddStubOptions,
  type ApplyOptions,
  type VerifyOptions,
  type LinkOptions,
  type ClearRequestsOptions,
} from './imposter-manager.js';
export { Imposter } from './imposter.js';
export type { SharedJournal, JournalOwner } from './shared-journal.js';
export type { EngineObserver, LifecycleAction, FaultType } from './observer.js';
export type { Compat, RenderOptions } from './imposter-json.js';
export type { RecordedRequest, MatchOutcome, RequestClause } from './recorded-request.js';
export { parseClauses, clausesMatch, requestOfRecord } from './recorded-request.js';
export type { VerifyResult } from './verify.js';
export type { ScenarioList, SpaceDetail, SpaceStubs } from './flow-scopes.js';
