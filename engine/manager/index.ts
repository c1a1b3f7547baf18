export { ImposterManager } from './imposter-manager.js';
export {
  StaleWrite,
  type ConfigReplica,
  type SharedImposter,
  type ApplyShared,
  type ReplicaTarget,
  type CommitOptions,
  type RecordingClaims,
} from './fleet-replica.js';
export type {
  ManagerOptions,
  PersistenceHooks,
  ApplyReport,
  StubRef,
  SavedRequestsQuery,
  SavedRequestsPage,
  CallOptions,
  StubEditOptions,
  CreateOptions,
  ParseOptions,
  AddStubOptions,
  ApplyOptions,
  VerifyOptions,
  LinkOptions,
  ClearRequestsOptions,
} from './options.js';
export { Imposter } from './imposter.js';
export type { SharedJournal, JournalOwner } from './shared-journal.js';
export type { EngineObserver, LifecycleAction, FaultType } from './observer.js';
export type { Compat, RenderOptions } from './imposter-json.js';
export type { RecordedRequest, MatchOutcome, RequestClause } from './recorded-request.js';
export { parseClauses, clausesMatch, requestOfRecord } from './recorded-request.js';
export type { VerifyResult } from './verify.js';
export type { ScenarioList, SpaceDetail, SpaceStubs } from './flow-scopes.js';
