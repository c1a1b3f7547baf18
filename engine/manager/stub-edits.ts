import { errorEntries, errors, isObject, SvcError } from '../model/index.js';
import { isRecordedProxyResponse } from '../respond/index.js';
import { spaceInsertIndex, spaceStub } from '../state/index.js';
import { parseStubs } from '../validate/index.js';
import type { CallPolicy } from './call-policy.js';
import type { Durability } from './durability.js';
import { deleteSpace, spaceStubs, type SpaceStubs } from './flow-scopes.js';
import type { Imposter, LiveStub, StubSplice } from './imposter.js';
import { stubLinks } from './imposter-json.js';
import type { ObserverSet } from './observer.js';
import type { AddStubOptions, LinkOptions, StubEditOptions, StubRef } from './options.js';
import { reuseStubs } from './stub-reuse.js';

/**
 * Edits of one imposter's stub list (docs/imposters.md, docs/scenarios-and-spaces.md): each is validated,
 * made durable (a refused write throws, nothing changed), applied, then announced. Callers run the
 * edits inside the write queue.
 */
export class StubEdits {
  constructor(
    private readonly policy: CallPolicy,
    private readonly durability: Durability,
    private readonly observers: ObserverSet,
  ) {}

  /**
   * A stub-list edit: made durable (a refused write throws, nothing changed), applied, then announced.
   * An edit of one place in the list says which stubs it kept around it (`edit`), so applying it reads
   * none of them.
   */
  async change(imposter: Imposter, stubs: LiveStub[], edit?: StubSplice): Promise<void> {
    this.durability.persistStubs(imposter, stubs);
    imposter.setStubs(stubs, edit);
    this.observers.onLifecycle('stubsChanged', imposter.port);
  }

  /** PUT /imposters/{port}/stubs: the body `{stubs: [...]}`. */
  async replace(imposter: Imposter, body: unknown, options: StubEditOptions): Promise<void> {
    if (!isObject(body)) throw errors.badData('request body must be a JSON object');
    if (body.stubs === undefined) throw errors.badData("'stubs' is a required field");
    if (!Array.isArray(body.stubs)) throw errors.badData("'stubs' must be an array");
    const parsed = parseStubs(body.stubs, this.policy.stubOptions(options, imposter));
    await this.change(imposter, reuseStubs(imposter, parsed));
  }

  /** POST /imposters/{port}/stubs; a missing `stub` is reported with a bad `index` in one 400. */
  async add(imposter: Imposter, stub: unknown, options: AddStubOptions): Promise<void> {
    const length = imposter.stubs.length;
    const at = options.index === undefined ? length : options.index;
    const problems = [];
    if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || at > length) {
      problems.push(errorEntries.badData("'index' must be between 0 and the length of the stubs array"));
    }
    if (stub === undefined) problems.push(errorEntries.badData("must contain 'stub' field"));
    if (problems.length > 0) throw errors.validation(problems);
    const [parsed] = parseStubs([stub], this.policy.stubOptions(options, imposter), this.ids(imposter), () => 'stub');
    const current = imposter.stubs;
    const next = [...current];
    next.splice(at as number, 0, imposter.liveStub(parsed));
    await this.change(imposter, next, { from: current, kept: at as number, tailKept: current.length - (at as number) });
  }

  /** Whether a stub of the imposter (but the one at `except`) has the id: a scan, paid only for ids an edit brings. */
  private ids(imposter: Imposter, except?: number): (id: string) => boolean {
    return (id) => imposter.stubs.some((s, i) => i !== except && s.config.id === id);
  }

  /** Index of the referenced stub, or a 404 (unknown id) / 400-style error (bad index). */
  resolve(imposter: Imposter, ref: StubRef): number {
    if ('id' in ref) {
      const at = imposter.stubs.findIndex((s) => s.config.id === ref.id);
      if (at === -1) throw errors.noSuchResource(`no stub with id '${ref.id}'`);
      return at;
    }
    if (!Number.isInteger(ref.index) || ref.index < 0 || ref.index >= imposter.stubs.length) {
      throw new SvcError(404, [errorEntries.badData("'stubIndex' must be a valid integer, representing the array index position of the stub to replace")]);
    }
    return ref.index;
  }

  get(imposter: Imposter, ref: StubRef, options: LinkOptions): Record<string, unknown> {
    const at = this.resolve(imposter, ref);
    const stub = imposter.stubConfigs()[at];
    return options.baseUrl === undefined ? stub : { ...stub, _links: stubLinks(options.baseUrl, imposter.port, at) };
  }

  list(imposter: Imposter, options: LinkOptions): Array<Record<string, unknown>> {
    const { baseUrl } = options;
    return imposter.stubConfigs().map((stub, i) => (baseUrl === undefined ? stub : { ...stub, _links: stubLinks(baseUrl, imposter.port, i) }));
  }

  /** PUT /imposters/{port}/stubs/{index} and .../by-id/{id}: the body is the stub (by id, its id is kept when left out). */
  async update(imposter: Imposter, ref: StubRef, stub: unknown, options: StubEditOptions): Promise<void> {
    if (!isObject(stub)) throw errors.badData('stub must be a JSON object');
    const at = this.resolve(imposter, ref);
    const replacement = 'id' in ref && stub.id === undefined ? { ...stub, id: ref.id } : stub;
    // The body is the stub itself: its fields' paths start at the document root.
    const [parsed] = parseStubs([replacement], this.policy.stubOptions(options, imposter), this.ids(imposter, at), () => '$');
    const current = imposter.stubs;
    const next = [...current];
    next[at] = imposter.liveStub(parsed);
    await this.change(imposter, next, { from: current, kept: at, tailKept: next.length - at - 1 });
  }

  async remove(imposter: Imposter, ref: StubRef): Promise<void> {
    const at = this.resolve(imposter, ref);
    const current = imposter.stubs;
    const next = [...current];
    next.splice(at, 1);
    await this.change(imposter, next, { from: current, kept: at, tailKept: next.length - at });
  }

  /**
   * DELETE /imposters/{port}/savedProxyResponses: drops every response a proxy recorded, and the
   * stubs left without responses (mountebank); untouched stubs keep their cycling state.
   */
  async clearProxyResponses(imposter: Imposter): Promise<void> {
    let changed = false;
    const next: LiveStub[] = [];
    for (const live of imposter.stubs) {
      const responses = live.config.responses as unknown[];
      const kept = responses.filter((response) => !isRecordedProxyResponse(response));
      if (kept.length === responses.length) {
        next.push(live);
        continue;
      }
      changed = true;
      if (kept.length > 0) next.push(imposter.liveStub({ config: { ...live.config, responses: kept } }));
    }
    if (changed) await this.change(imposter, next);
  }

  /** A bare stub scoped to the flow, placed before the shared stubs (engine/state/spaces.ts says why). */
  async spaceAdd(imposter: Imposter, flowId: string, stub: unknown, options: StubEditOptions): Promise<SpaceStubs> {
    const [parsed] = parseStubs([spaceStub(stub, flowId)], this.policy.stubOptions(options, imposter), this.ids(imposter), () => '');
    const next = [...imposter.stubs];
    next.splice(
      spaceInsertIndex(
        next.map((live) => live.config),
        flowId,
      ),
      0,
      imposter.liveStub(parsed),
    );
    await this.change(imposter, next);
    return spaceStubs(imposter, flowId);
  }

  spaceDelete(imposter: Imposter, flowId: string): Promise<{ space: string; tornDown: true }> {
    return deleteSpace(imposter, flowId, (kept) => this.change(imposter, kept));
  }
}
