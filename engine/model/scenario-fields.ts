/**
 * The stub fields that gate a stub per flow (docs/imposters.md): `space`, and the scenario trio
 * `scenarioName` / `requiredScenarioState` / `newScenarioState`. The two state fields are also
 * accepted in snake_case (wire examples use both); the config keeps the spelling given, so readers
 * go through the accessors below.
 */
import { errorEntries, type ErrorEntry } from './errors.js';

const STATE_SPELLINGS = {
  requiredScenarioState: 'required_scenario_state',
  newScenarioState: 'new_scenario_state',
} as const;

/** Every key that can carry one of these fields, in either spelling. */
export const FLOW_GATE_FIELDS = [
  'space',
  'scenarioName',
  'requiredScenarioState',
  'required_scenario_state',
  'newScenarioState',
  'new_scenario_state',
] as const;

function stringField(stub: Record<string, unknown>, key: string): string | undefined {
  const value = stub[key];
  return typeof value === 'string' ? value : undefined;
}

export function spaceOf(stub: Record<string, unknown>): string | undefined {
  return stringField(stub, 'space');
}

export function scenarioNameOf(stub: Record<string, unknown>): string | undefined {
  return stringField(stub, 'scenarioName');
}

export function requiredStateOf(stub: Record<string, unknown>): string | undefined {
  return stringField(stub, 'requiredScenarioState') ?? stringField(stub, STATE_SPELLINGS.requiredScenarioState);
}

export function newStateOf(stub: Record<string, unknown>): string | undefined {
  return stringField(stub, 'newScenarioState') ?? stringField(stub, STATE_SPELLINGS.newScenarioState);
}

/** True when any of the gate fields is present (such stubs make matching consult the flow id). */
export function hasFlowGate(stub: Record<string, unknown>): boolean {
  return FLOW_GATE_FIELDS.some((key) => stub[key] !== undefined);
}

/**
 * Type and consistency problems of the gate fields: each is a non-empty string; both spellings of a
 * state must agree; a state needs the scenario it belongs to (there is no implicit scenario).
 */
export function flowGateProblems(stub: Record<string, unknown>): ErrorEntry[] {
  const problems: ErrorEntry[] = [];
  for (const key of FLOW_GATE_FIELDS) {
    const value = stub[key];
    if (value !== undefined && (typeof value !== 'string' || value === '')) {
      problems.push(errorEntries.badData(`'${key}' must be a non-empty string`, stub));
    }
  }
  if (problems.length > 0) return problems;
  for (const [camel, snake] of Object.entries(STATE_SPELLINGS)) {
    if (stub[camel] !== undefined && stub[snake] !== undefined && stub[camel] !== stub[snake]) {
      problems.push(errorEntries.badData(`'${camel}' and '${snake}' are two spellings of one field and must agree`, stub));
    }
  }
  if (stub.scenarioName === undefined && (requiredStateOf(stub) !== undefined || newStateOf(stub) !== undefined)) {
    problems.push(errorEntries.badData("a scenario state needs 'scenarioName' (the scenario it belongs to)", stub));
  }
  return problems;
}
