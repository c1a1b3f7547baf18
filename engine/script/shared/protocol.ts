/**
 * What the script engines share (`_svc.script` in engine/script/svc and the JavaScript engine in
 * engine/script/js): the request/response shapes a script sees, and the state messages a worker
 * sends to its imposter's flow store (state-bridge.ts). Neither engine reaches into the other for them.
 */
import type { ScriptPlacement } from '../../model/index.js';

/** Where a script runs (docs/scripts.md), named by its entry point (engine/model lists where each sits in a stub). */
export type Placement = ScriptPlacement;

export interface ScriptRequestData {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  pathParams: Record<string, string>;
  headers: Record<string, string | string[]>;
  /** Raw text; base64 when binary. */
  body: string;
  isBinary?: boolean;
}

export interface ScriptResponseData {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
}

export interface StubInfo {
  id?: string;
  scenarioName?: string;
  scenarioState?: string;
}

/** The FlowStore operations a script can reach (engine/state/flow-store.ts), by method name. */
export type StateOp = 'get' | 'set' | 'exists' | 'delete' | 'incrBy' | 'cas' | 'expireFlow' | 'expireKey' | 'clear';

export interface StateMessage {
  type: 'state';
  /** The run asking. */
  id: number;
  /** Matches the answer to the question (a late answer to an abandoned one is dropped). */
  seq: number;
  flowId: string;
  op: StateOp;
  args: unknown[];
  /**
   * Set for a run an engine thread posted on its link (per-core): main answers from that imposter's
   * store (main owns it), not from a run of its own.
   */
  scope?: number;
}

export type StateAnswer = { seq: number; ok: true; value: unknown } | { seq: number; ok: false; message: string };
