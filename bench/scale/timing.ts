/**
 * How bench/scale.ts times a case, one request at a time on one keep-alive
 * connection (latency, not throughput), after a warm-up, every answer
 * checked; reported as p50, p95, p99 and mean, from sending to the last byte.
 * A cold case sends a different URL each time, none sent to the server
 * before (checked: the server keeps a page under a tag made from its URL,
 * so a URL asked again may be answered from memory without the database); a
 * kept case sends one URL again and again, the server's kept page.
 */
import type http from 'node:http';
import { ACCEPT_JSON, type Reply } from '../lib/client.js';
import { BenchFailure, isInterrupted, progress } from '../lib/processes.js';
import { percentile } from '../lib/report.js';
import { checkAlive, requestServer, type ServerProcess } from '../lib/server.js';

export const WARMUP_REQUESTS = 5;

/** What a case is about, for the report: the page cases of old, and the list queries. */
export type CaseGroup = 'page' | 'count' | 'cursor' | 'search' | 'owner' | 'ordering';

/** cold: every request a URL new to the server; kept: one URL repeated; sql: a query through the harness's own connection. */
export type Mode = 'cold' | 'kept' | 'sql';

export interface Latency {
  group: CaseGroup;
  mode: Mode;
  case: string;
  /** The request, or the SQL. */
  what: string;
  /** Timed requests (the warm-up not counted). */
  requests: number;
  /** Different URLs sent, the warm-up's included: all of them for a cold case, 1 for a kept one. */
  distinctUrls: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  meanMs: number;
  /** Null: no target (reported for information). */
  targetMs: number | null;
  problems: string[];
}

export interface Timed {
  group: CaseGroup;
  mode: Mode;
  label: string;
  what: string;
  distinctUrls: number;
  targetMs: number | null;
}

export function latency(timed: Timed, samples: number[], problems: string[]): Latency {
  const { group, mode, label, what, distinctUrls, targetMs } = timed;
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  const at = (fraction: number): number => percentile(sorted, fraction);
  return { group, mode, case: label, what, requests: sorted.length, distinctUrls, p50Ms: at(0.5), p95Ms: at(0.95), p99Ms: at(0.99), meanMs: mean, targetMs, problems };
}

/** How many times a case runs: up to `requests`, and no longer than `maxSeconds`. */
export interface Repetitions {
  requests: number;
  maxSeconds: number;
}

/**
 * `once` up to `requests` times in a row after `warmups` more, stopping early
 * after `maxSeconds` or Ctrl-C; the milliseconds each took.
 */
export async function timeInARow({ requests, maxSeconds }: Repetitions, once: () => Promise<number>, warmups = WARMUP_REQUESTS): Promise<number[]> {
  for (let i = 0; i < warmups && !isInterrupted(); i += 1) await once();
  const samples: number[] = [];
  const started = performance.now();
  while (samples.length < requests && !isInterrupted() && performance.now() - started < maxSeconds * 1000) samples.push(await once());
  return samples;
}

/** One request of a case and what its answer must be. */
export interface Probe {
  path: string;
  /** What is wrong with an answer, or null. */
  check(reply: Reply): string | null;
}

/** A case: its requests (cold: each sent once, the warm-up first; kept: the one sent every time). */
export interface RequestCase {
  group: CaseGroup;
  mode: 'cold' | 'kept';
  label: string;
  /** The request as the report shows it (a cursor is long and says nothing; a cold case, its range). */
  shown: string;
  targetMs: number | null;
  probes: readonly Probe[];
}

/** A kept case: one URL, asked every time. */
export function keptCase(group: CaseGroup, label: string, probe: Probe, shown = `GET ${probe.path}`): RequestCase {
  return { group, mode: 'kept', label, shown, targetMs: null, probes: [probe] };
}

/** The server and the one connection and credential every case uses. */
export interface Session extends Repetitions {
  server: ServerProcess;
  agent: http.Agent;
  authorization: string;
  /** Every URL sent to this server so far: a cold case's must all be new. */
  sent: Set<string>;
}

/** How many of a case's requests are the warm-up, and how many are timed: a cold case has only so many URLs. */
function planOf(session: Session, request: RequestCase): { warmups: number; requests: number } {
  if (request.mode === 'kept') return { warmups: WARMUP_REQUESTS, requests: session.requests };
  const available = request.probes.length;
  const warmups = Math.min(WARMUP_REQUESTS, Math.max(0, available - 1));
  return { warmups, requests: Math.min(session.requests, available - warmups) };
}

/** A case timed; each distinct problem of its answers is reported once, with how often. */
export async function measureRequest(session: Session, request: RequestCase): Promise<Latency> {
  const { server, agent, authorization, sent } = session;
  const problems = new Map<string, number>();
  const note = (problem: string): void => {
    problems.set(problem, (problems.get(problem) ?? 0) + 1);
  };
  const paths = new Set<string>();
  let next = 0;
  const once = async (): Promise<number> => {
    const probe = request.probes[request.mode === 'kept' ? 0 : next++];
    if (!probe) throw new Error(`${request.label}: no request left`);
    if (request.mode === 'cold' && sent.has(probe.path)) note('a URL sent before (its page may have been kept): not cold');
    sent.add(probe.path);
    paths.add(probe.path);
    const reply = await requestServer(server, probe.path, { headers: { ...ACCEPT_JSON, Authorization: authorization }, agent });
    const problem = probe.check(reply);
    if (problem !== null) note(problem);
    return reply.ms;
  };
  progress(`  ${request.mode}: ${request.label}: ${request.shown}`);
  const { warmups, requests } = planOf(session, request);
  if (requests < 1) throw new BenchFailure(`${request.label}: ${request.probes.length} different requests, too few to time (more --comments)`);
  const samples = await timeInARow({ ...session, requests }, once, warmups);
  checkAlive(server);
  const timed = { group: request.group, mode: request.mode, label: request.label, what: request.shown, distinctUrls: paths.size, targetMs: request.targetMs };
  const result = latency(timed, samples, [...problems].map(([problem, count]) => `${count}× ${problem}`));
  progress(`    p50 ${result.p50Ms.toFixed(2)} ms, p95 ${result.p95Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms (${result.requests} requests, ${result.distinctUrls} URLs)`);
  return result;
}
