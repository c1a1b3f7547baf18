/**
 * The JavaScript loop bound (docs/limits.md: 10,000,000 iterations per call frame). QuickJS counts only
 * ticks shared by every frame of a call, so the bound is written into the source instead: every
 * function whose own body holds a loop gets a frame-local counter, and every loop body counts one
 * iteration and calls the sandbox's LOOP_BOUND_HOOK past the bound. The rewrite keeps line numbers
 * (it inserts text on existing lines) and runs once per source, when the sandbox compiles it.
 */
import { createRequire } from 'node:module';
import type * as Acorn from 'acorn';

export const LOOP_ITERATIONS_PER_FRAME = 10_000_000;
/** The sandbox global a guarded loop calls past the bound (defined non-writable by the sandbox). */
export const LOOP_BOUND_HOOK = '__svcLoopBound';
const COUNTER = '__svcLoopIterations';
const GUARD = `if(++${COUNTER}>${LOOP_ITERATIONS_PER_FRAME})${LOOP_BOUND_HOOK}();`;

const LOOPS = new Set(['ForStatement', 'ForInStatement', 'ForOfStatement', 'WhileStatement', 'DoWhileStatement']);
// A class static block is not a frame of its own here: its loops count against the enclosing function's counter.
const FRAMES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

type AnyNode = Acorn.Node & Record<string, unknown>;
/** A source without these words has no loop to guard. */
const LOOP_KEYWORD = /\b(?:for|while|do)\b/;
/** Loaded on the first source with a loop: most scripts have none, and the parser adds to a worker's cold start. */
let acorn: typeof Acorn | undefined;
const requireModule = createRequire(import.meta.url);

/** Where a function's counter is declared: the start of its body, after the directive prologue. */
function counterAt(frame: AnyNode): number | undefined {
  const block = frame.body as AnyNode;
  if (block.type !== 'BlockStatement') return undefined;
  const statements = block.body as AnyNode[];
  let at = block.start + 1;
  for (const statement of statements) {
    if (typeof statement.directive !== 'string') break;
    at = statement.end;
  }
  return at;
}

/**
 * `source` (a function expression, as the sandbox evaluates it) with its loops bounded. A source
 * acorn cannot parse is returned unchanged: QuickJS then reports its own syntax error.
 */
export function guardLoops(source: string): string {
  if (!LOOP_KEYWORD.test(source)) return source;
  acorn ??= requireModule('acorn') as typeof Acorn;
  let program: Acorn.Node;
  try {
    program = acorn.parse(`(${source}\n)`, { ecmaVersion: 'latest', sourceType: 'script' });
  } catch {
    return source;
  }
  const inserts: Array<[number, string]> = [];
  const framesWithLoops = new Set<AnyNode>();
  const visit = (node: AnyNode, frame: AnyNode | undefined): void => {
    const own = FRAMES.has(node.type) ? node : frame;
    if (LOOPS.has(node.type) && own) {
      framesWithLoops.add(own);
      const body = node.body as AnyNode;
      if (body.type === 'BlockStatement') inserts.push([body.start + 1, GUARD]);
      else inserts.push([body.start, `{${GUARD}`], [body.end, '}']);
    }
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) {
        for (const child of value) if (isNode(child)) visit(child, own);
      } else if (isNode(value)) {
        visit(value, own);
      }
    }
  };
  visit(program as AnyNode, undefined);
  for (const frame of framesWithLoops) {
    const at = counterAt(frame);
    if (at !== undefined) inserts.push([at, `let ${COUNTER}=0;`]);
  }
  if (inserts.length === 0) return source;
  // Positions are in the parenthesised text: one character ahead of `source`. Later inserts go first.
  inserts.sort((a, b) => b[0] - a[0]);
  let guarded = `(${source}\n)`;
  for (const [at, text] of inserts) guarded = guarded.slice(0, at) + text + guarded.slice(at);
  return guarded.slice(1, -2);
}

function isNode(value: unknown): value is AnyNode {
  return value !== null && typeof value === 'object' && typeof (value as { type?: unknown }).type === 'string';
}
