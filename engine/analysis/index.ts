export { analyzeStubs, StubAnalysis, MAX_WARNINGS, type StubListEdit, type StubWarning, type WarningType } from './stub-warnings.js';
export { debugReport, wantsDebug, BODY_PREVIEW_CHARS, type DebugImposter, type DebugOutcome, type DebugStub } from './debug-report.js';
export { canonicalJson } from '../model/index.js';
export { ignoredConfigKeys, imposterIgnoredKeys, stubIgnoredKeys, stubKeyAt, type IgnoredKey } from './config-keys.js';
