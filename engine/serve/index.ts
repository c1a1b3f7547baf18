export { debugOutcomeOf, debugReportOf, RequestPipeline } from './pipeline.js';
export {
  compileLiveStub,
  stubsUseJavaScript,
  stubsUseRhai,
  type ImposterState,
  type LiveStub,
  type ServedImposter,
  type ServeOptions,
} from './host.js';
export { recordOf, type MatchOutcome, type RecordedRequest } from './record.js';
