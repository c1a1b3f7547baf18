/**
 * The `from` + `using` half shared by copy and lookup: which request value to read and how to cut
 * values out of it (regex groups, xpath nodes, jsonpath matches), compiled once per stub response.
 */
import { selectJsonPath, xpathValueSelector } from '../../match/index.js';
import { compileUserPattern, isObject, type UserPattern } from '../../model/index.js';

export type ValueSelector = (request: Record<string, unknown>) => unknown[];

function keyIgnoringCase(container: object, wanted: string): string | undefined {
  const lower = String(wanted).toLowerCase();
  return Object.keys(container).find((key) => key.toLowerCase() === lower);
}

/** mountebank's getFrom: `'field'` or `{field: subField}` (any depth), keys case-insensitive, first of a multi-value. */
export function readFrom(container: unknown, from: unknown): unknown {
  if (container === undefined || container === null) return undefined;
  if (isObject(from)) {
    const [key] = Object.keys(from);
    return readFrom((container as Record<string, unknown>)[key], from[key]);
  }
  const result = (container as Record<string, unknown>)[keyIgnoringCase(Object(container), from as string) as string];
  return Array.isArray(result) ? result[0] : result;
}

function regexFlags(options: unknown): string {
  if (!isObject(options)) return '';
  return (options.ignoreCase ? 'i' : '') + (options.multiline ? 'm' : '');
}

/** A selection with no match yields `[]`; numbers and booleans from xpath count as no match, as in mountebank. */
function asList(matches: unknown): unknown[] {
  if (matches === undefined || matches === null) return [];
  const length = (matches as { length?: unknown }).length;
  if (typeof length !== 'number' || length === 0) return [];
  return Array.isArray(matches) ? matches : Array.from(matches as ArrayLike<unknown>);
}

/**
 * Compiles `{from, using}`; a selector that cannot compile (bad regex) fails each use rather than
 * the stub, because mountebank accepts it at creation and fails the request.
 */
export function compileSelector(fromSpec: unknown, usingSpec: Record<string, unknown>): ValueSelector {
  const selector = usingSpec.selector;
  let pick: (value: unknown) => unknown;
  switch (usingSpec.method) {
    case 'regex': {
      let regex: UserPattern | Error;
      try {
        regex = compileUserPattern(selector === undefined ? '' : String(selector), regexFlags(usingSpec.options));
      } catch (err) {
        regex = err as Error;
      }
      pick = (value) => {
        if (regex instanceof Error) throw regex;
        return regex.exec(value as string);
      };
      break;
    }
    case 'xpath': {
      const select = xpathValueSelector(selector, isObject(usingSpec.ns) ? (usingSpec.ns as Record<string, string>) : {});
      pick = (value) => select(value as string);
      break;
    }
    default:
      pick = (value) => selectJsonPath(selector, value);
  }
  return (request) => asList(pick(readFrom(request, fromSpec)));
}
