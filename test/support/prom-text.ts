/**
 * A strict parser for the Prometheus text exposition format 0.0.4, for tests: it rejects anything
 * a Prometheus server would reject (bad names, label syntax or escapes, values, a sample without
 * a TYPE family, a repeated family or series, histogram buckets that are not cumulative or lack
 * `+Inf`, `_count` differing from the `+Inf` bucket).
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help?: string;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function fail(lineNo: number, message: string): never {
  throw new Error(`exposition line ${lineNo}: ${message}`);
}

function parseValue(text: string, lineNo: number): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) fail(lineNo, `bad value '${text}'`);
  return Number(text);
}

/** Labels from just after `{`; returns them and the index after `}`. */
function parseLabels(line: string, start: number, lineNo: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = start;
  for (;;) {
    if (line[i] === '}') return { labels, end: i + 1 };
    const eq = line.indexOf('=', i);
    if (eq === -1) fail(lineNo, 'label without =');
    const name = line.slice(i, eq);
    if (!LABEL_NAME.test(name)) fail(lineNo, `bad label name '${name}'`);
    if (name in labels) fail(lineNo, `label '${name}' repeated`);
    if (line[eq + 1] !== '"') fail(lineNo, 'label value not quoted');
    let value = '';
    let j = eq + 2;
    for (; ; j += 1) {
      const c = line[j];
      if (c === undefined) fail(lineNo, 'unterminated label value');
      if (c === '"') break;
      if (c === '\\') {
        const next = line[j + 1];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else fail(lineNo, `bad escape \\${next}`);
        j += 1;
      } else {
        value += c;
      }
    }
    labels[name] = value;
    i = j + 1;
    if (line[i] === ',') i += 1;
    else if (line[i] !== '}') fail(lineNo, 'expected , or } after a label');
  }
}

function familyOf(sampleName: string, families: Map<string, Family>): Family | undefined {
  const direct = families.get(sampleName);
  if (direct) return direct;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sampleName.endsWith(suffix)) continue;
    const family = families.get(sampleName.slice(0, -suffix.length));
    if (family && (family.type === 'histogram' || (family.type === 'summary' && suffix !== '_bucket'))) return family;
  }
  return undefined;
}

function checkHistogram(family: Family): void {
  const groups = new Map<string, { buckets: Array<[number, number]>; count?: number; sum?: number }>();
  for (const s of family.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const group = groups.get(key) ?? { buckets: [] };
    groups.set(key, group);
    if (s.name === `${family.name}_bucket`) {
      if (le === undefined) throw new Error(`${family.name}: bucket without le`);
      group.buckets.push([le === '+Inf' ? Infinity : Number(le), s.value]);
    } else if (s.name === `${family.name}_count`) group.count = s.value;
    else if (s.name === `${family.name}_sum`) group.sum = s.value;
    else throw new Error(`${family.name}: unexpected sample ${s.name}`);
  }
  for (const [key, group] of groups) {
    const sorted = [...group.buckets].sort((a, b) => a[0] - b[0]);
    if (sorted.at(-1)?.[0] !== Infinity) throw new Error(`${family.name}${key}: no +Inf bucket`);
    for (let i = 1; i < sorted.length; i += 1) {
      if (sorted[i]![1] < sorted[i - 1]![1]) throw new Error(`${family.name}${key}: buckets not cumulative`);
    }
    if (group.count !== sorted.at(-1)![1]) throw new Error(`${family.name}${key}: _count differs from the +Inf bucket`);
    if (group.sum === undefined) throw new Error(`${family.name}${key}: no _sum`);
  }
}

export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const series = new Set<string>();
  const lines = text.split('\n');
  if (lines.at(-1) !== '') fail(lines.length, 'exposition must end with a newline');
  lines.forEach((line, at) => {
    const lineNo = at + 1;
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) return;
      const [, kind, name, rest] = m;
      if (!METRIC_NAME.test(name!)) fail(lineNo, `bad metric name '${name}'`);
      let family = families.get(name!);
      if (kind === 'TYPE') {
        if (!TYPES.has(rest!)) fail(lineNo, `bad type '${rest}'`);
        if (family?.samples.length || (family && family.type !== 'untyped')) fail(lineNo, `TYPE for ${name} repeated or after its samples`);
        family ??= { name: name!, type: 'untyped', samples: [] };
        family.type = rest as Family['type'];
      } else {
        if (family?.help !== undefined) fail(lineNo, `HELP for ${name} repeated`);
        family ??= { name: name!, type: 'untyped', samples: [] };
        family.help = rest;
      }
      families.set(name!, family);
      return;
    }
    const nameEnd = line.search(/[{ ]/);
    if (nameEnd <= 0) fail(lineNo, 'sample without value');
    const name = line.slice(0, nameEnd);
    if (!METRIC_NAME.test(name)) fail(lineNo, `bad metric name '${name}'`);
    let labels: Record<string, string> = {};
    let rest = nameEnd;
    if (line[nameEnd] === '{') ({ labels, end: rest } = parseLabels(line, nameEnd + 1, lineNo));
    if (line[rest] !== ' ') fail(lineNo, 'expected a space before the value');
    const parts = line.slice(rest + 1).split(' ');
    if (parts.length > 2) fail(lineNo, 'trailing garbage');
    const value = parseValue(parts[0]!, lineNo);
    if (parts[1] !== undefined && !/^-?\d+$/.test(parts[1])) fail(lineNo, `bad timestamp '${parts[1]}'`);
    const family = familyOf(name, families);
    if (!family) fail(lineNo, `sample ${name} has no TYPE family`);
    const id = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (series.has(id)) fail(lineNo, `series ${id} repeated`);
    series.add(id);
    family.samples.push({ name, labels, value });
  });
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

/** Label-name set of every sample of a family whose name is exactly `sampleName`. */
export function labelSets(family: Family, sampleName = family.name): string[][] {
  return family.samples.filter((s) => s.name === sampleName).map((s) => Object.keys(s.labels).sort());
}
