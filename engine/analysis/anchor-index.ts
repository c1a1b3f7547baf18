import type { Constraint, PredicateFacts } from './predicate-facts.js';

type AffixOp = 'startsWith' | 'endsWith' | 'contains';

/**
 * One predicate of a stub E that every stub E covers must carry or imply, so candidates are looked up
 * rather than scanned: `exact` (an equals constraint or opaque predicate: only an identical one implies
 * it) or an affix constraint (implied by a constraint on the same field whose value has it as a prefix,
 * suffix or substring).
 */
type Anchor = { kind: 'exact'; key: string } | { kind: AffixOp; group: string; value: string };

function groupOf(c: Constraint): string {
  return `${c.caseSensitive ? 'C' : 'i'}${c.field}`;
}

function equalsKey(c: Constraint): string {
  return `=${groupOf(c)}\u0000${c.value}`;
}

function longest(constraints: Constraint[]): Constraint | undefined {
  let best: Constraint | undefined;
  for (const c of constraints) if (best === undefined || c.value.length > best.value.length) best = c;
  return best;
}

/** The most selective anchor: an equals on the path, another non-method equals, an opaque predicate, the longest affix, a method equals. */
function anchorOf(facts: PredicateFacts): Anchor | undefined {
  const equals = facts.constraints.filter((c) => c.op === 'equals');
  const selective = equals.find((c) => c.field === 'path') ?? equals.find((c) => c.field !== 'method');
  if (selective) return { kind: 'exact', key: equalsKey(selective) };
  if (facts.opaque.length > 0) return { kind: 'exact', key: `#${facts.opaque[0]}` };
  const affix =
    longest(facts.constraints.filter((c) => c.op === 'startsWith' || c.op === 'endsWith')) ?? longest(facts.constraints.filter((c) => c.op === 'contains'));
  if (affix) return { kind: affix.op as AffixOp, group: groupOf(affix), value: affix.value };
  return equals[0] ? { kind: 'exact', key: equalsKey(equals[0]) } : undefined;
}

/** Affix anchors of one op and field: value length -> value -> stub indices. */
type AffixTable = Map<number, Map<string, number[]>>;

/**
 * Stubs indexed by anchor, for the shadowing analysis: `candidates` returns, in stub order, every
 * added stub that could cover the given facts, at a cost that grows with the facts' own values and the
 * number of distinct affix lengths, not with the number of stubs.
 */
export class AnchorIndex {
  private readonly exact = new Map<string, number[]>();
  private readonly affixes = new Map<string, AffixTable>();
  private readonly unanchored: number[] = [];

  add(index: number, facts: PredicateFacts): void {
    const anchor = anchorOf(facts);
    if (anchor === undefined) {
      insertInOrder(this.unanchored, index);
    } else if (anchor.kind === 'exact') {
      appendTo(this.exact, anchor.key, index);
    } else {
      const tableKey = `${anchor.kind}\u0000${anchor.group}`;
      let table = this.affixes.get(tableKey);
      if (!table) this.affixes.set(tableKey, (table = new Map()));
      let values = table.get(anchor.value.length);
      if (!values) table.set(anchor.value.length, (values = new Map()));
      appendTo(values, anchor.value, index);
    }
  }

  /**
   * The stubs `[at, at + removed)` replaced by `inserted` (undefined: a stub not indexed, a catch-all):
   * later stubs shift, the lists stay in stub order.
   */
  splice(at: number, removed: ReadonlyArray<PredicateFacts | undefined>, inserted: ReadonlyArray<PredicateFacts | undefined>): void {
    const end = at + removed.length;
    const delta = inserted.length - removed.length;
    const remap = (list: number[]): void => {
      let kept = 0;
      for (const index of list) {
        if (index < at) list[kept++] = index;
        else if (index >= end) list[kept++] = index + delta;
      }
      list.length = kept;
    };
    if (delta === 0) {
      // Nothing moves: only the removed stubs' own lists change.
      removed.forEach((facts, n) => {
        const list = facts === undefined ? undefined : this.listOf(facts);
        const found = list === undefined ? -1 : list.indexOf(at + n);
        if (found !== -1) list!.splice(found, 1);
      });
    } else {
      remap(this.unanchored);
      for (const list of this.exact.values()) remap(list);
      for (const table of this.affixes.values()) for (const values of table.values()) for (const list of values.values()) remap(list);
    }
    inserted.forEach((facts, n) => {
      if (facts !== undefined) this.add(at + n, facts);
    });
  }

  /** The list `add` put stubs of these facts in. */
  private listOf(facts: PredicateFacts): number[] | undefined {
    const anchor = anchorOf(facts);
    if (anchor === undefined) return this.unanchored;
    if (anchor.kind === 'exact') return this.exact.get(anchor.key);
    return this.affixes.get(`${anchor.kind}\u0000${anchor.group}`)?.get(anchor.value.length)?.get(anchor.value);
  }

  candidates(facts: PredicateFacts): number[] {
    const found = new Set<number>(this.unanchored);
    const take = (list: number[] | undefined): void => {
      if (list) for (const i of list) found.add(i);
    };
    for (const key of facts.opaque) take(this.exact.get(`#${key}`));
    for (const c of facts.constraints) {
      if (c.op === 'equals') take(this.exact.get(equalsKey(c)));
      const group = groupOf(c);
      if (c.op === 'equals' || c.op === 'startsWith') this.lookupAffix('startsWith', group, c.value, take);
      if (c.op === 'equals' || c.op === 'endsWith') this.lookupAffix('endsWith', group, c.value, take);
      this.lookupAffix('contains', group, c.value, take);
    }
    return [...found].sort((a, b) => a - b);
  }

  private lookupAffix(op: AffixOp, group: string, value: string, take: (list: number[] | undefined) => void): void {
    const table = this.affixes.get(`${op}\u0000${group}`);
    if (!table) return;
    for (const [length, values] of table) {
      if (length > value.length) continue;
      if (op === 'startsWith') take(values.get(value.slice(0, length)));
      else if (op === 'endsWith') take(values.get(value.slice(value.length - length)));
      else if (values.size <= value.length - length + 1) {
        for (const [part, list] of values) if (value.includes(part)) take(list);
      } else {
        for (let at = 0; at + length <= value.length; at += 1) take(values.get(value.slice(at, at + length)));
      }
    }
  }
}

/** Adds `index` to the key's list, kept in stub order (an insert lands before later stubs). */
function appendTo<K>(map: Map<K, number[]>, key: K, index: number): void {
  const list = map.get(key);
  if (list) insertInOrder(list, index);
  else map.set(key, [index]);
}

function insertInOrder(list: number[], index: number): void {
  let at = list.length;
  while (at > 0 && list[at - 1]! > index) at--;
  list.splice(at, 0, index);
}
