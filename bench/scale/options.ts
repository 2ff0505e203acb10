/** The command line of bench/scale.ts (its header describes each option). */
import { parseArgs } from 'node:util';
import { positiveInteger } from '../lib/options.js';

export interface Options {
  comments: number;
  requests: number;
  maxSeconds: number;
  listComments: number;
  logLevel: string;
  json: string | undefined;
}

export function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      comments: { type: 'string', default: '1000000' },
      requests: { type: 'string', default: '200' },
      'max-seconds': { type: 'string', default: '60' },
      'list-comments': { type: 'string', default: '100000' },
      'log-level': { type: 'string', default: 'info' },
      json: { type: 'string' },
    },
  });
  return {
    comments: positiveInteger('comments', values.comments),
    requests: positiveInteger('requests', values.requests),
    maxSeconds: positiveInteger('max-seconds', values['max-seconds']),
    listComments: positiveInteger('list-comments', values['list-comments']),
    logLevel: values['log-level'],
    json: values.json,
  };
}
