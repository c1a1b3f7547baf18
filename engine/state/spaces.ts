/**
 * Spaces (docs/scenarios-and-spaces.md): stubs scoped to one flow id, kept in the imposter's stub list with `space`
 * set, so matching rule 5 skips them for every other flow.
 *
 * Order: a space's stubs go before the imposter's shared stubs (after that space's earlier stubs).
 * A space exists to override for one flow; appended after shared stubs, a shared catch-all (usually
 * last) would shadow every space stub. A request of the flow that no space stub matches still falls
 * through to the shared stubs, unless the space has a catch-all of its own (the `{}` default).
 */
import { errors, FLOW_GATE_FIELDS, isObject, scenarioNameOf, spaceOf } from '../model/index.js';

/** The fields of a stub (docs/imposters.md); a space body must carry one of them, or be `{}`. */
const STUB_FIELDS = new Set<string>(['id', 'predicates', 'responses', 'routePattern', '_verify', ...FLOW_GATE_FIELDS]);

/**
 * The stub to add for a space-stub body: validated as a bare stub (not the `{stub: ...}` envelope of
 * POST /imposters/{port}/stubs), `space` set from the flow id, and a stub without `responses` (the
 * space-wide default `{}` or `{predicates: []}`) answering with the default response. Full stub
 * validation follows when it is added.
 */
export function spaceStub(body: unknown, flowId: string): Record<string, unknown> {
  if (!isObject(body)) throw errors.badData('a space stub must be a JSON object: the stub itself, e.g. {"predicates": [...], "responses": [...]}');
  const keys = Object.keys(body);
  if (keys.length > 0 && !keys.some((key) => STUB_FIELDS.has(key))) {
    if ('stub' in body) {
      throw errors.badData(
        'the space stubs endpoint takes a bare stub, not the {"stub": ...} envelope of /imposters/{port}/stubs: send the stub\'s fields (predicates, responses, ...) at the top level',
      );
    }
    throw errors.badData(`the body has none of the stub fields (${[...STUB_FIELDS].join(', ')})`);
  }
  const stub: Record<string, unknown> = { ...body, space: flowId };
  // `is: {}` serves the imposter's default response, as mountebank fills an empty `is`.
  if (stub.responses === undefined || stub.responses === null) stub.responses = [{ is: {} }];
  return stub;
}

/** Where a new stub of `flowId` goes: after that space's last stub, else before the first shared stub. */
export function spaceInsertIndex(configs: ReadonlyArray<Record<string, unknown>>, flowId: string): number {
  for (let i = configs.length - 1; i >= 0; i--) if (spaceOf(configs[i]!) === flowId) return i + 1;
  const shared = configs.findIndex((config) => spaceOf(config) === undefined);
  return shared === -1 ? configs.length : shared;
}

/** Stubs a flow can match: the shared ones and its own space's. */
function visibleTo(config: Record<string, unknown>, flowId: string): boolean {
  const space = spaceOf(config);
  return space === undefined || space === flowId;
}

/** Scenario names declared by the stubs a flow can match, first declaration first. */
export function scenarioNamesFor(configs: ReadonlyArray<Record<string, unknown>>, flowId: string): string[] {
  const names = new Set<string>();
  for (const config of configs) {
    const name = scenarioNameOf(config);
    if (name !== undefined && visibleTo(config, flowId)) names.add(name);
  }
  return [...names];
}
