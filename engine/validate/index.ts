/**
 * Imposter and stub configs validated into typed definitions, with every problem as a docs/errors.md entry.
 * A room of its own, above model, match, respond and script: checking a stub needs the predicate
 * compiler, the behavior and fault checks and the script settings, and model stays a leaf they all use.
 */
export { parseImposter, parseStubs, type ImposterDefinition, type StubDefinition, type Protocol, type ParseOptions } from './imposter-config.js';
