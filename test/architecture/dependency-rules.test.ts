/**
 * The import rules of .dependency-cruiser.cjs hold (no new violation beyond the known list), and no
 * cycle between rooms exists beyond KNOWN_ROOM_CYCLES. Both lists only shrink: a listed violation
 * or cycle that is gone fails the test too, so the lists stay exact.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../support/servers.js';

const test = suite('architecture: room import rules');

/** Room cycles allowed, each as its rooms sorted: none since issue 12 broke the last; keep it empty. */
const KNOWN_ROOM_CYCLES: string[][] = [];

interface CruiseDependency {
  resolved: string;
  dynamic: boolean;
}
interface CruiseModule {
  source: string;
  dependencies: CruiseDependency[];
}
interface CruiseViolation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
}
interface CruiseResult {
  modules: CruiseModule[];
  summary: { error: number; ignore: number; violations: CruiseViolation[] };
}

let result: CruiseResult;

test.before(async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      join(repoRoot, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
      '--config',
      '.dependency-cruiser.cjs',
      '--ignore-known',
      '--output-type',
      'json',
      'index.ts',
      'app',
      'engine',
      'admin',
      'ffi',
      'tools',
    ],
    { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 },
  );
  result = JSON.parse(stdout) as CruiseResult;
});

/** engine/script/js/host.ts → engine/script/js; admin/server.ts → admin. */
function roomOf(path: string): string {
  const folders = path.split('/').slice(0, -1);
  return folders.slice(0, 3).join('/');
}

/** A room and a room inside it are one house: only cycles between rooms that do not contain each other count. */
function nested(a: string, b: string): boolean {
  return a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/** Strongly connected components of more than one room (Tarjan), each sorted. */
function roomCycles(modules: CruiseModule[]): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const module of modules) {
    const from = roomOf(module.source);
    if (!edges.has(from)) edges.set(from, new Set());
    for (const dependency of module.dependencies) {
      if (!/^(engine|admin|ffi|tools)\//.test(dependency.resolved)) continue;
      const to = roomOf(dependency.resolved);
      if (to !== from && !nested(from, to)) edges.get(from)!.add(to);
    }
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (room: string) => {
    index.set(room, index.size);
    low.set(room, index.get(room)!);
    stack.push(room);
    onStack.add(room);
    for (const next of edges.get(room) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(room, Math.min(low.get(room)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(room, Math.min(low.get(room)!, index.get(next)!));
      }
    }
    if (low.get(room) === index.get(room)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== room);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const room of edges.keys()) if (!index.has(room)) visit(room);
  return components.sort((a, b) => a.join().localeCompare(b.join()));
}

test('no import breaks a rule beyond the known violations', () => {
  const errors = result.summary.violations.filter((v) => v.rule.severity === 'error');
  assert.equal(
    errors.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`),
    [],
  );
  assert.is(result.summary.error, 0);
});

test('cycles between rooms are exactly the known ones (the list only shrinks)', () => {
  assert.equal(roomCycles(result.modules), KNOWN_ROOM_CYCLES);
});

test('the room map sees the rooms it guards', () => {
  const rooms = new Set(result.modules.map((m) => roomOf(m.source)));
  for (const room of ['app', 'engine/match', 'engine/model', 'engine/script/js', 'admin', 'admin/routes', 'ffi/host', 'tools/cli']) {
    assert.ok(rooms.has(room), `room ${room} not cruised`);
  }
});

test.run();
