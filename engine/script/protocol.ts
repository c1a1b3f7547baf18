/**
 * What the script engines share (`_svc.script` in engine/script/svc and the JavaScript engine in
 * engine/script/js): the request/response shapes a script sees, and the state messages a worker
 * sends to its imposter's flow store (state-bridge.ts). Neither engine reaches into the other for them.
 */
import type { StateOp } from './ctx.js';

/** Where a script runs (SPEC §2.7), named by its entry point. */
export type Placement = 'respond' | 'matches' | 'transform' | 'delay';

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

export interface StateMessage {
  type: 'state';
  /** The run asking. */
  id: number;
  /** Matches the answer to the question (a late answer to an abandoned one is dropped). */
  seq: number;
  flowId: string;
  op: StateOp;
  args: unknown[];
}

export type StateAnswer = { seq: number; ok: true; value: unknown } | { seq: number; ok: false; message: string };
