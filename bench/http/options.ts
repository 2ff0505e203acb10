/** The command line of bench/http.ts (its header describes each option). */
import { parseArgs } from 'node:util';
import { positiveInteger } from '../lib/options.js';

export interface Options {
  workers: number;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  comments: number;
  logLevel: string;
  json: string | undefined;
}

export function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      workers: { type: 'string', default: process.env.WEB_CONCURRENCY || '1' },
      connections: { type: 'string', default: '10' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      comments: { type: 'string', default: '10000' },
      'log-level': { type: 'string', default: 'info' },
      json: { type: 'string' },
    },
  });
  const warmupSeconds = Number(values.warmup);
  if (!Number.isInteger(warmupSeconds) || warmupSeconds < 0) throw new Error(`--warmup must be a whole number of seconds, not ${values.warmup}`);
  return {
    workers: positiveInteger('workers', values.workers),
    connections: positiveInteger('connections', values.connections),
    durationSeconds: positiveInteger('duration', values.duration),
    warmupSeconds,
    comments: positiveInteger('comments', values.comments),
    logLevel: values['log-level'],
    json: values.json,
  };
}
