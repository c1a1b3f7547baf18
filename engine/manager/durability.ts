import type { Logger } from '../log/index.js';
import type { Imposter, LiveStub } from './imposter.js';
import type { PersistenceHooks } from './options.js';
import { errorText } from '../model/index.js';

/** The manager's durable copy of the imposter set (a data directory), when it has one: changes reach it before they answer. */
export class Durability {
  constructor(
    private hooks: PersistenceHooks | undefined,
    /** What the persistence hooks keep of an imposter: its replayable JSON text, as if its stubs were `stubs`. */
    private readonly durableForm: (port: number, stubs?: readonly LiveStub[]) => readonly Uint8Array[],
    private readonly log: Logger,
  ) {}

  get installed(): boolean {
    return this.hooks !== undefined;
  }

  /** Installs the persistence hooks (a data directory); false, and nothing changed, when the manager already has some. */
  install(hooks: PersistenceHooks): boolean {
    if (this.hooks !== undefined) return false;
    this.hooks = hooks;
    return true;
  }

  /** Keeps the imposter on `port` as it runs now; throws (nothing kept) when the durable copy refuses. */
  persist(port: number): void {
    this.hooks?.persist(port, () => this.durableForm(port));
  }

  /** Before deleting the imposter on `port` (not when replacing it); throws when it must stay. */
  beforeDelete(port: number): void {
    this.hooks?.beforeDelete(port);
  }

  /** Makes the imposter just started on `port` durable; when that fails, `undo` stops it again and the failure is thrown. */
  async persistOrUndo(port: number, undo: () => Promise<void>): Promise<void> {
    if (!this.hooks) return;
    try {
      this.hooks.persist(port, () => this.durableForm(port));
    } catch (err) {
      await undo();
      throw err;
    }
  }

  /** Writes `imposter` as it will be with `stubs`, before they are applied: a refused write changes nothing. */
  persistStubs(imposter: Imposter, stubs: readonly LiveStub[]): void {
    this.hooks?.persist(imposter.port, () => this.durableForm(imposter.port, stubs));
  }

  /** Proxy recordings change stubs while serving: no caller to answer, so a failed write is logged. */
  persistRecorded(port: number): void {
    try {
      this.hooks?.persist(port, () => this.durableForm(port));
    } catch (err) {
      this.log.error(`imposter ${port}: a recorded proxy response is served but not persisted: ${errorText(err)}`);
    }
  }

  /** The pre-delete hook's refusal, if any (the imposter must then stay). */
  refusesDelete(port: number): Error | undefined {
    try {
      this.hooks?.beforeDelete(port);
      return undefined;
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  }
}
