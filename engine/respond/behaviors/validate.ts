/**
 * Create-time validation of behaviors with mountebank's messages
 * (`<behavior> behavior "<field>" field <problem>`), plus svc's wait extensions.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { isObject, MAX_DELAY_MS } from '../../model/index.js';
import { behaviorEntries, entrySteps } from './steps.js';

export interface BehaviorProblem {
  message: string;
  source: unknown;
}

type TypeName = 'string' | 'number' | 'object';

interface TypeRule {
  singleKeyOnly?: boolean;
  oneOf?: string[];
  nonNegative?: boolean;
  /** Largest accepted number (also a numeric string's parsed value): past it a value sizes unbounded work. */
  maximum?: number;
  integer?: boolean;
}

/** A field: whether it must be present, the JSON types it accepts, and its nested fields. */
interface FieldRule {
  required: boolean;
  types: Partial<Record<TypeName, TypeRule>>;
  context?: string;
  fields?: Record<string, FieldRule>;
}

const from: FieldRule = {
  required: true,
  types: { string: {}, object: { singleKeyOnly: true } },
  context: 'the request field to select from',
};
const into: FieldRule = { required: true, types: { string: {} }, context: 'the token to replace in response fields' };
const using: FieldRule = {
  required: true,
  types: { object: {} },
  fields: {
    method: { required: true, types: { string: { oneOf: ['regex', 'xpath', 'jsonpath'] } } },
    selector: { required: true, types: { string: {} } },
  },
};

/** Fields of copy and lookup, checked relative to the behavior's own value. */
const RECORD_RULES: Record<string, Record<string, FieldRule>> = {
  copy: { from, into, using },
  lookup: {
    key: {
      required: true,
      types: { object: {} },
      fields: {
        from,
        using,
        index: { required: false, types: { number: { nonNegative: true, integer: true, maximum: Number.MAX_SAFE_INTEGER } } },
      },
    },
    fromDataSource: {
      required: true,
      types: { object: { singleKeyOnly: true, oneOf: ['csv'] } },
      fields: {
        csv: {
          required: false,
          types: { object: {} },
          fields: {
            path: { required: true, types: { string: {} }, context: 'the path to the CSV file' },
            delimiter: { required: false, types: { string: {} }, context: 'the delimiter separator values' },
            keyColumn: { required: true, types: { string: {} }, context: 'the column header to select against the "key" field' },
          },
        },
      },
    },
    into,
  },
};

/** Behaviors whose value itself is the field; built on first use, as model (MAX_DELAY_MS) and this room import each other. */
let valueRules: Record<string, FieldRule> | undefined;

function valueRuleOf(kind: string): FieldRule | undefined {
  valueRules ??= {
    wait: { required: true, types: { string: { maximum: MAX_DELAY_MS }, number: { nonNegative: true, maximum: MAX_DELAY_MS } } },
    shellTransform: { required: true, types: { string: {} }, context: 'the path to a command line application' },
    decorate: { required: true, types: { string: {} }, context: 'a JavaScript function' },
  };
  return valueRules[kind];
}

const ARTICLE: Record<TypeName, string> = { number: 'a', object: 'an', string: 'a' };

function typeMessage(rule: FieldRule): string {
  const names = Object.keys(rule.types) as TypeName[];
  const message = `must be ${names.map((name) => `${ARTICLE[name]} ${name}`).join(' or ')}`;
  return rule.context ? `${message}, representing ${rule.context}` : message;
}

/** JavaScript's `typeof` folded to the names the rules use (null and arrays count as objects, like mountebank). */
function typeName(value: unknown): string {
  return value === null ? 'object' : typeof value;
}

function child(value: unknown, key: string): unknown {
  return value === null || value === undefined ? undefined : (value as Record<string, unknown>)[key];
}

function firstKey(value: unknown): unknown {
  return isObject(value) || Array.isArray(value) ? Object.keys(value)[0] : value;
}

/** A number, or a string as mountebank reads it (parseInt); NaN for anything else. */
function numericValue(value: unknown): number {
  return typeof value === 'number' ? value : typeof value === 'string' ? parseInt(value, 10) : NaN;
}

function checkField(value: unknown, path: string, rule: FieldRule, report: (path: string, message: string) => void): void {
  if (value === undefined) {
    if (rule.required) report(path, 'required');
    return;
  }
  const typeRule = rule.types[typeName(value) as TypeName];
  if (!typeRule) {
    report(path, typeMessage(rule));
  } else if (typeRule.singleKeyOnly && (value === null || Object.keys(value as object).length !== 1)) {
    report(path, 'must have exactly one key');
  } else if (typeRule.oneOf && !typeRule.oneOf.includes(firstKey(value) as string)) {
    report(path, `must be one of [${typeRule.oneOf.join(', ')}]`);
  } else if (typeRule.nonNegative && (value as number) < 0) {
    report(path, 'must be an integer greater than or equal to 0');
  } else if (typeRule.integer && !Number.isInteger(value)) {
    report(path, 'must be an integer greater than or equal to 0');
  } else if (typeRule.maximum !== undefined && numericValue(value) > typeRule.maximum) {
    report(path, `must be at most ${typeRule.maximum}`);
  }
  if (typeRule) {
    for (const [name, nested] of Object.entries(rule.fields ?? {})) {
      checkField(child(value, name), `${path}.${name}`, nested, report);
    }
  }
}

/** svc's object forms of wait: `{min, max}` (ms range) and `{inject}` (function). */
function checkWaitObject(value: Record<string, unknown>, report: (path: string, message: string) => void): void {
  if (value.inject !== undefined) {
    if (typeof value.inject !== 'string') report('wait.inject', 'must be a string, representing a JavaScript function');
    return;
  }
  if (value.min === undefined && value.max === undefined) {
    report('wait', 'must be a string, a number, an object with min and max, or an object with inject');
    return;
  }
  for (const bound of ['min', 'max'] as const) {
    const n = value[bound];
    if (n === undefined) report(`wait.${bound}`, 'required');
    else if (typeof n !== 'number' || n < 0) report(`wait.${bound}`, 'must be a number greater than or equal to 0');
    else if (n > MAX_DELAY_MS) report(`wait.${bound}`, `must be at most ${MAX_DELAY_MS}`);
  }
  if (typeof value.min === 'number' && typeof value.max === 'number' && value.max < value.min) {
    report('wait.max', 'must be greater than or equal to "wait.min"');
  }
}

function checkStep(kind: string, value: unknown, report: (path: string, message: string) => void): void {
  // `{"_svc": {"script": S}}` (decorate, wait) is checked with the stub's other scripts (engine/script/svc).
  if ((kind === 'wait' || kind === 'decorate') && isObject(value) && value._svc !== undefined) return;
  if (kind === 'wait' && isObject(value)) {
    checkWaitObject(value, report);
    return;
  }
  const valueRule = valueRuleOf(kind);
  if (valueRule) {
    checkField(value, kind, valueRule, report);
    return;
  }
  for (const [name, rule] of Object.entries(RECORD_RULES[kind])) checkField(child(value, name), name, rule, report);
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return !(rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel));
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * A lookup CSV path (read as given, relative to the working directory, as in mountebank) must lie under
 * `root`, also once symbolic links are followed, like `file:` scripts under `--scripts-dir`.
 */
function checkCsvConfined(value: unknown, root: string, report: (path: string, message: string) => void): void {
  const csv = isObject(value) && isObject(value.fromDataSource) ? value.fromDataSource.csv : undefined;
  if (!isObject(csv) || typeof csv.path !== 'string') return;
  const path = resolve(csv.path);
  if (!isInside(root, path) || !isInside(realOrSelf(root), realOrSelf(path))) {
    report('fromDataSource.csv.path', `must be inside the scripts directory (${root})`);
  }
}

/** Every behavior problem of one response (empty when valid); `csvRoot` (`--scripts-dir`) confines lookup CSV paths. */
export function behaviorProblems(response: Record<string, unknown>, csvRoot?: string): BehaviorProblem[] {
  const entries = behaviorEntries(response);
  if (entries === undefined) {
    const field = response._behaviors !== undefined ? '_behaviors' : 'behaviors';
    const shape = field === '_behaviors' ? 'an object' : 'an array';
    return [{ message: `'${field}' must be ${shape}`, source: response }];
  }
  const problems: BehaviorProblem[] = [];
  for (const entry of entries) {
    if (entry === null || entry === undefined) {
      problems.push({ message: 'each behavior must be an object', source: entry });
      continue;
    }
    const steps = entrySteps(entry);
    for (const { kind, value } of steps) {
      const report = (path: string, message: string): void => {
        problems.push({ message: `${kind} behavior "${path}" field ${message}`, source: entry });
      };
      checkStep(kind, value, report);
      if (kind === 'lookup' && csvRoot !== undefined) checkCsvConfined(value, csvRoot, report);
    }
    const keys = Object.keys(entry);
    if (steps.length === 0 && keys.length > 0) problems.push({ message: `Unrecognized behavior: "${keys[0]}"`, source: entry });
    if (steps.length > 1) problems.push({ message: 'Each behavior object must have only one behavior type', source: entry });
  }
  return problems;
}
