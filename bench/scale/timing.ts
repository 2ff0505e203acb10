/**
 * How bench/scale.ts times a case: the same request one at a time on one
 * keep-alive connection (latency, not throughput), after a warm-up, every
 * answer checked; reported as p50, p99 and mean, from sending to the last byte.
 */
import type http from 'node:http';
import { ACCEPT_JSON, type Reply } from '../lib/client.js';
import { isInterrupted, progress } from '../lib/processes.js';
import { percentile } from '../lib/report.js';
import { checkAlive, requestServer, type ServerProcess } from '../lib/server.js';

export const WARMUP_REQUESTS = 5;

/** What a case is about, for the report: the page cases of old, and the list queries. */
export type CaseGroup = 'page' | 'count' | 'cursor' | 'search' | 'owner' | 'ordering';

export interface Latency {
  group: CaseGroup;
  case: string;
  /** The request, or the SQL. */
  what: string;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  /** Null: no target (reported for information). */
  targetMs: number | null;
  problems: string[];
}

export function latency(group: CaseGroup, label: string, what: string, samples: number[], targetMs: number | null, problems: string[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  return { group, case: label, what, requests: sorted.length, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), meanMs: mean, targetMs, problems };
}

/** How many times a case runs: up to `requests`, and no longer than `maxSeconds`. */
export interface Repetitions {
  requests: number;
  maxSeconds: number;
}

/**
 * `once` up to `count` times in a row after the warm-up, stopping early after
 * `maxSeconds` or Ctrl-C; the milliseconds each took.
 */
export async function timeInARow({ requests, maxSeconds }: Repetitions, once: () => Promise<number>): Promise<number[]> {
  for (let i = 0; i < WARMUP_REQUESTS && !isInterrupted(); i += 1) await once();
  const samples: number[] = [];
  const started = performance.now();
  while (samples.length < requests && !isInterrupted() && performance.now() - started < maxSeconds * 1000) samples.push(await once());
  return samples;
}

/** One timed request and what its answer must be. */
export interface RequestCase {
  group: CaseGroup;
  label: string;
  path: string;
  /** The request as the report shows it (a cursor is long and says nothing). */
  shown: string;
  targetMs: number | null;
  /** What is wrong with an answer, or null. */
  check(reply: Reply): string | null;
}

/** The server and the one connection and credential every case uses. */
export interface Session extends Repetitions {
  server: ServerProcess;
  agent: http.Agent;
  authorization: string;
}

/** A case timed; each distinct problem of its answers is reported once, with how often. */
export async function measureRequest(session: Session, request: RequestCase): Promise<Latency> {
  const { server, agent, authorization } = session;
  const problems = new Map<string, number>();
  const once = async (): Promise<number> => {
    const reply = await requestServer(server, request.path, { headers: { ...ACCEPT_JSON, Authorization: authorization }, agent });
    const problem = request.check(reply);
    if (problem !== null) problems.set(problem, (problems.get(problem) ?? 0) + 1);
    return reply.ms;
  };
  progress(`  ${request.label}: ${request.shown}`);
  const samples = await timeInARow(session, once);
  checkAlive(server);
  const result = latency(request.group, request.label, request.shown, samples, request.targetMs, [...problems].map(([problem, count]) => `${count}× ${problem}`));
  progress(`    p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms (${result.requests} requests)`);
  return result;
}
