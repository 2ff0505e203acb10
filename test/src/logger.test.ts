import { PassThrough } from 'node:stream';
import { describe, expect, test } from '@jest/globals';
import { pino } from 'pino';
import pretty from 'pino-pretty';
import { readableLogOptions } from '../../src/logger.js';

/** What a terminal would show for the lines `write` logs. */
function shown(write: (logger: pino.Logger) => void): string {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const logger = pino({ level: 'info' }, pretty({ ...readableLogOptions(false), sync: true, destination: out }));
  write(logger);
  return text;
}

describe('logs at a terminal', () => {
  test('a request is one readable line: time, level, method, URL, status and time taken, no JSON', () => {
    const text = shown((logger) =>
      logger.info(
        { req: { id: 'r1', method: 'GET', url: '/comments/?page=2', headers: { host: 'x' } }, res: { statusCode: 200 }, responseTime: 3, clientAddress: '127.0.0.1' },
        'request completed',
      ),
    );
    const lines = text.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: GET \/comments\/\?page=2 200 3 ms$/);
  });

  test('any other line shows its message and its own fields on the same line', () => {
    const text = shown((logger) => logger.warn({ table: 'comments' }, 'no index'));
    expect(text.trim()).toMatch(/WARN: no index \{"table":"comments"\}$/);
    expect(text).not.toContain('pid');
  });
});
