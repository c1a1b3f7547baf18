import type { ImposterManager } from '../../engine/manager/index.js';
import type { InterceptControl } from '../../admin/index.js';
import type { Argument } from './arguments.js';
import type { EmbeddedAdmin } from './admin-plane.js';

/** The C functions are not injection-gated (docs/c-abi.md): every manager call they make says so. */
export const TRUSTED = { trusted: true } as const;

/** What an operation answers: JSON (or PEM) text for string functions, a number for int functions. */
export type OperationResult = string | number;
export type Operation = (args: Argument[]) => OperationResult | Promise<OperationResult>;
export type Operations = Record<string, Operation>;

/** What the operations of one handle work on. */
export interface HostContext {
  manager: ImposterManager;
  admin: EmbeddedAdmin;
  intercept: InterceptControl;
}
