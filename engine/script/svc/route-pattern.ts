/**
 * A stub's `routePattern` (docs/imposters.md): `/users/{id}` or `/users/:id`, compiled once when stubs change;
 * a request path it fits yields `ctx.request.pathParams`. It never decides whether the stub matches.
 */

export type PathParams = (path: string) => Record<string, string>;

const NONE: PathParams = () => ({});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One `{name}` or `:name` parameter per path segment position; each takes one whole segment. */
export function compileRoutePattern(pattern: string | undefined): PathParams {
  if (pattern === undefined) return NONE;
  const names: string[] = [];
  const parameter = /\{([^}/]+)\}|:([A-Za-z_][A-Za-z0-9_]*)/g;
  let regex = '';
  let at = 0;
  for (let m = parameter.exec(pattern); m; m = parameter.exec(pattern)) {
    regex += escapeRegExp(pattern.slice(at, m.index)) + '([^/]+)';
    names.push(m[1] ?? m[2]!);
    at = m.index + m[0].length;
  }
  regex += escapeRegExp(pattern.slice(at));
  const compiled = new RegExp(`^${regex}/?$`);
  return (path) => {
    const found = compiled.exec(path);
    if (!found) return {};
    const params: Record<string, string> = {};
    names.forEach((name, i) => {
      const raw = found[i + 1]!;
      try {
        params[name] = decodeURIComponent(raw);
      } catch {
        params[name] = raw;
      }
    });
    return params;
  };
}
