import { isObject } from '../../engine/model/index.js';

/** One `_verify.sequence` step (docs/recording-and-verify.md) with its defaults applied. */
export interface VerifyStep {
  request: { method: string; path: string; headers: Record<string, string>; body?: string };
  expect: { status?: number; bodyContains?: string; bodyEquals?: string };
}

/** The stub's steps; empty when the stub has no `_verify`. Throws a message naming the field when malformed. */
export function parseVerify(annotation: unknown): VerifyStep[] {
  if (annotation === undefined) return [];
  if (!isObject(annotation)) throw new Error("'_verify' must be an object");
  const sequence = annotation.sequence ?? [];
  if (!Array.isArray(sequence)) throw new Error("'_verify.sequence' must be an array");
  return sequence.map((step: unknown, index) => parseStep(step, `_verify.sequence[${index}]`));
}

function parseStep(step: unknown, where: string): VerifyStep {
  if (!isObject(step)) throw new Error(`'${where}' must be an object`);
  const { request, expect = {} } = step;
  if (!isObject(request)) throw new Error(`'${where}.request' is required and must be an object`);
  if (typeof request.path !== 'string' || !request.path.startsWith('/')) throw new Error(`'${where}.request.path' is required and must start with '/'`);
  const method = request.method ?? 'GET';
  if (typeof method !== 'string' || !/^[A-Za-z]+$/.test(method)) throw new Error(`'${where}.request.method' must be a method name`);
  const headers = request.headers ?? {};
  if (!isObject(headers) || !Object.values(headers).every((value) => typeof value === 'string')) {
    throw new Error(`'${where}.request.headers' must be an object of strings`);
  }
  const body = request.body === undefined || request.body === null ? undefined : typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
  if (!isObject(expect)) throw new Error(`'${where}.expect' must be an object`);
  const { status, bodyContains, bodyEquals } = expect;
  if (status !== undefined && (typeof status !== 'number' || !Number.isInteger(status))) throw new Error(`'${where}.expect.status' must be an integer`);
  if (bodyContains !== undefined && typeof bodyContains !== 'string') throw new Error(`'${where}.expect.bodyContains' must be a string`);
  if (bodyEquals !== undefined && typeof bodyEquals !== 'string') throw new Error(`'${where}.expect.bodyEquals' must be a string`);
  return {
    request: { method: method.toUpperCase(), path: request.path, headers: headers as Record<string, string>, body },
    expect: { status, bodyContains, bodyEquals },
  };
}
