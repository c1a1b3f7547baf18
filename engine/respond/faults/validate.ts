import { isObject, MAX_DELAY_MS, repeatedHeaderProblems } from '../../model/index.js';

const BLOCK_MEMBERS = ['latency', 'error', 'tcp'];
const LATENCY_MEMBERS = ['probability', 'ms', 'minMs', 'maxMs'];
const ERROR_MEMBERS = ['probability', 'status', 'body', 'headers'];
const TCP_MEMBERS = ['probability', 'type'];

function unknownMembers(value: Record<string, unknown>, allowed: string[], where: string, errs: string[]): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) errs.push(`'${where}' has unknown member '${key}' (expected ${allowed.join(', ')})`);
  }
}

function checkProbability(value: Record<string, unknown>, where: string, errs: string[]): void {
  const p = value.probability;
  if (p === undefined) return;
  if (typeof p !== 'number' || !(p >= 0 && p <= 1)) errs.push(`'${where}.probability' must be a number from 0 to 1`);
}

function isDuration(value: unknown): value is number {
  return typeof value === 'number' && value >= 0 && value <= MAX_DELAY_MS;
}

function durationProblem(value: unknown, at: string): string {
  return typeof value === 'number' && value > MAX_DELAY_MS ? `'${at}' must be at most ${MAX_DELAY_MS}` : `'${at}' must be a number >= 0`;
}

function checkLatency(latency: unknown, errs: string[]): void {
  const where = '_svc.fault.latency';
  if (!isObject(latency)) {
    errs.push(`'${where}' must be an object`);
    return;
  }
  unknownMembers(latency, LATENCY_MEMBERS, where, errs);
  checkProbability(latency, where, errs);
  const ranged = latency.minMs !== undefined || latency.maxMs !== undefined;
  if (latency.ms !== undefined && ranged) {
    errs.push(`'${where}' takes either 'ms' or 'minMs' and 'maxMs', not both`);
    return;
  }
  const names = ranged ? ['minMs', 'maxMs'] : ['ms'];
  for (const name of names) {
    if (!isDuration(latency[name])) errs.push(durationProblem(latency[name], `${where}.${name}`));
  }
  if (ranged && isDuration(latency.minMs) && isDuration(latency.maxMs) && latency.minMs > latency.maxMs) {
    errs.push(`'${where}.minMs' must not exceed '${where}.maxMs'`);
  }
}

function isHeaderValue(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function checkHeaders(headers: unknown, errs: string[]): void {
  const where = '_svc.fault.error.headers';
  if (!isObject(headers)) {
    errs.push(`'${where}' must be an object`);
    return;
  }
  for (const [name, value] of Object.entries(headers)) {
    if (!isHeaderValue(value) && !(Array.isArray(value) && value.every(isHeaderValue))) {
      errs.push(`'${where}.${name}' must be a string, a number or an array of them`);
    }
  }
  errs.push(...repeatedHeaderProblems(headers, where));
}

function checkError(error: unknown, errs: string[]): void {
  const where = '_svc.fault.error';
  if (!isObject(error)) {
    errs.push(`'${where}' must be an object`);
    return;
  }
  unknownMembers(error, ERROR_MEMBERS, where, errs);
  checkProbability(error, where, errs);
  const status = error.status;
  if (status !== undefined && !(typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599)) {
    errs.push(`'${where}.status' must be a valid HTTP status code (100-599)`);
  }
  if (error.body !== undefined && typeof error.body !== 'string') errs.push(`'${where}.body' must be a string`);
  if (error.headers !== undefined) checkHeaders(error.headers, errs);
}

/** Fault names are not checked here: an unknown name answers 500 `Unknown fault` when it fires (docs/faults.md). */
function checkTcp(tcp: unknown, errs: string[]): void {
  const where = '_svc.fault.tcp';
  if (typeof tcp === 'string') return;
  if (!isObject(tcp)) {
    errs.push(`'${where}' must be a fault name or {probability, type}`);
    return;
  }
  unknownMembers(tcp, TCP_MEMBERS, where, errs);
  if (tcp.probability === undefined) errs.push(`'${where}.probability' is required in the object form`);
  checkProbability(tcp, where, errs);
  if (typeof tcp.type !== 'string') errs.push(`'${where}.type' must be a string naming a TCP fault`);
}

/** docs/faults.md shape of a response's `_svc.fault` block; one message per problem, none when valid or absent. */
export function faultBlockErrors(response: Record<string, unknown>): string[] {
  const svc = response._svc;
  if (!isObject(svc) || svc.fault === undefined) return [];
  const block = svc.fault;
  const errs: string[] = [];
  if (!isObject(block)) return ["'_svc.fault' must be an object"];
  unknownMembers(block, BLOCK_MEMBERS, '_svc.fault', errs);
  if (block.latency !== undefined) checkLatency(block.latency, errs);
  if (block.error !== undefined) checkError(block.error, errs);
  if (block.tcp !== undefined) checkTcp(block.tcp, errs);
  return errs;
}
