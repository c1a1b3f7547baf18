// Recorded `matchOutcome` (docs/recording-and-verify.md) as sentences, one per candidate stub. Pure: no DOM, no fetch.

const OPERATORS = ['equals', 'deepEquals', 'contains', 'startsWith', 'endsWith', 'matches', 'exists', 'and', 'or', 'not', 'inject'];
const MAPPED_FIELDS = new Set(['query', 'headers']);

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** ` (jsonpath $.id)` / ` (xpath //a)` of a predicate's selector parameter, or ''. */
function selectorText(predicate) {
  if (isObject(predicate.jsonpath)) return ` (jsonpath ${predicate.jsonpath.selector})`;
  return isObject(predicate.xpath) ? ` (xpath ${predicate.xpath.selector})` : '';
}

/** "equals path", "contains headers.Accept", "and of 2 predicates", "matches body (jsonpath $.id)". */
export function describePredicate(predicate) {
  if (!isObject(predicate)) return 'predicate';
  const operator = OPERATORS.find((name) => name in predicate) ?? Object.keys(predicate)[0] ?? 'predicate';
  const argument = predicate[operator];
  if (operator === 'and' || operator === 'or') return `${operator} of ${Array.isArray(argument) ? argument.length : 0} predicates`;
  if (operator === 'not') return `not (${describePredicate(argument)})`;
  if (operator === 'inject' || !isObject(argument)) return operator;
  const fields = Object.keys(argument).flatMap((field) =>
    MAPPED_FIELDS.has(field) && isObject(argument[field]) ? Object.keys(argument[field]).map((key) => `${field}.${key}`) : [field],
  );
  return `${operator} ${fields.join(', ')}${selectorText(predicate)}`;
}

const shortJson = (value) => {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 40 ? `${text.slice(0, 39)}…` : text;
};

/** A predicate with its values: `equals path "/a", method "GET"`, `exists query.q true`. */
export function summarisePredicate(predicate) {
  if (!isObject(predicate)) return 'predicate';
  const operator = OPERATORS.find((name) => name in predicate);
  const argument = operator === undefined ? undefined : predicate[operator];
  if (operator === undefined || operator === 'and' || operator === 'or' || operator === 'not' || operator === 'inject' || !isObject(argument)) {
    return operator === 'not' ? `not (${summarisePredicate(argument)})` : describePredicate(predicate);
  }
  const parts = Object.entries(argument).flatMap(([field, value]) =>
    MAPPED_FIELDS.has(field) && isObject(value) && operator !== 'deepEquals'
      ? Object.entries(value).map(([key, v]) => `${field}.${key} ${shortJson(v)}`)
      : [`${field} ${shortJson(value)}`],
  );
  return `${operator} ${parts.join(', ')}${selectorText(predicate)}`;
}

/** The stub an entry names: by id when the stub list still has it (indexes shift on edits), else by index. */
function stubFor(stubs, stubIndex, stubId) {
  if (stubId !== undefined) {
    const byId = stubs.find((stub) => stub.id === stubId);
    if (byId) return byId;
  }
  return stubs[stubIndex];
}

function triedSentence(entry, stubs) {
  const stub = stubFor(stubs, entry.stubIndex, entry.stubId);
  const why = entry.why ?? {};
  const head = `stub ${entry.stubIndex}`;
  if (why.reason === 'failedPredicate') {
    const predicate = stub?.predicates?.[why.predicateIndex];
    return `${head}: predicate ${why.predicateIndex} failed: ${describePredicate(predicate)}`;
  }
  if (why.reason === 'skippedSpace') return `${head}: skipped: it belongs to space "${stub?.space ?? '?'}"`;
  if (why.reason === 'skippedScenarioState') {
    return `${head}: skipped: scenario "${stub?.scenarioName ?? '?'}" is not in state "${stub?.requiredScenarioState ?? '?'}"`;
  }
  return `${head}: ${why.reason ?? 'not matched'}`;
}

/**
 * `[{kind, text}]`: a headline (`match`, `miss` or `none`), then one `tried` line per visited candidate.
 * On a miss, stubs the engine never visited were ruled out by its request index (method, path and
 * header literals) before any predicate ran; they are named together in one line.
 */
export function outcomeSentences(outcome, stubs = []) {
  if (!isObject(outcome)) return [{ kind: 'none', text: 'no match outcome recorded' }];
  const tried = Array.isArray(outcome.tried) ? outcome.tried : [];
  const lines = [outcome.matched ? { kind: 'match', text: `matched stub ${outcome.stubIndex}` } : { kind: 'miss', text: 'matched no stub' }];
  for (const entry of tried) lines.push({ kind: 'tried', text: triedSentence(entry, stubs) });
  if (outcome.triedOmitted > 0) lines.push({ kind: 'tried', text: `… and ${outcome.triedOmitted} more candidates` });
  if (!outcome.matched && !(outcome.triedOmitted > 0)) {
    const visited = new Set(tried.map((entry) => entry.stubIndex));
    const skipped = stubs.map((_, index) => index).filter((index) => !visited.has(index));
    if (skipped.length > 0) {
      const named = skipped.length > 8 ? `${skipped.slice(0, 8).join(', ')} … (${skipped.length} stubs)` : skipped.join(', ');
      const one = skipped.length === 1;
      lines.push({ kind: 'tried', text: `${one ? 'stub' : 'stubs'} ${named}: ruled out by the request index before ${one ? 'its' : 'their'} predicates ran` });
    }
  }
  return lines;
}

/** The JSON path (`$.stubs[0].responses[1]`) of the first node of `root` deep-equal to `target`, or undefined. */
export function pathOf(root, target) {
  const wanted = JSON.stringify(target);
  const walk = (node, path) => {
    if (JSON.stringify(node) === wanted) return path;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i += 1) {
        const found = walk(node[i], `${path}[${i}]`);
        if (found) return found;
      }
    } else if (isObject(node)) {
      for (const [key, value] of Object.entries(node)) {
        const found = walk(value, /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);
        if (found) return found;
      }
    }
    return undefined;
  };
  return target === undefined ? undefined : walk(root, '$');
}
