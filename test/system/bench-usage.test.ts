import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { projectRoot } from '../../src/paths.js';

/** Every program of `npm run bench*`, and the two servers it starts beside ours. */
const PROGRAMS = ['http', 'scale', 'loaddata', 'ceiling', 'reference'];

function run(program: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [path.join(projectRoot, 'dist/bench', `${program}.js`), ...args], {
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe.each(PROGRAMS)('the benchmark program %s', (program) => {
  test('prints its usage for --help and exits 0, starting nothing', () => {
    const { status, stdout, stderr } = run(program, ['--help']);
    expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
    expect(stdout).toMatch(/^Usage: /);
  });

  test('names a wrong option in one line, then the usage, and exits 2', () => {
    const { status, stdout, stderr } = run(program, ['--no-such-option']);
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.split('\n')[0]).toMatch(/: Unknown option '--no-such-option'$/);
    expect(stderr).toContain('\nUsage: ');
  });
});
