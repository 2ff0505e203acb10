import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from '@jest/globals';
import { CommandFailed } from '../../../src/cli/accounts.js';
import { seedFailure } from '../../../src/cli/seeding.js';
import { seed, seedEmptyDevelopmentDatabase } from '../../../src/db/seeder.js';
import { translator } from '../../../src/i18n.js';
import { useDataWorkspace } from '../../helpers/userdata.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/seeders');
const DEVELOPMENT = { NODE_ENV: 'development' };

describe('seeders', () => {
  const data = useDataWorkspace();
  const comments = () => data.withServices((services) => services.registry.get('Comment').model.count());

  test('seed applies each seeder once and lists the demo accounts it made', async () => {
    const first = await data.manage(['seed']);
    expect(first.status).toBe(0);
    expect(first.stdout.split('\n')).toEqual([
      'Applied seeder 0001_demo_accounts.',
      'Applied seeder 0002_demo_comments.',
      'Demo accounts (username / password):',
      '  admin / admin-demo-pass (superuser)',
      '  alice / alice-demo-pass (user)',
      '  taro / taro-demo-pass (user)',
      '',
    ]);
    expect(await data.manage(['seed'])).toMatchObject({ status: 0, stdout: 'No seeders to apply.\n' });
    expect(await comments()).toBe(23);
    await data.withHttp(async (http) => {
      const page = await http.get('/comments/').auth('alice', 'alice-demo-pass');
      expect(page.body).toMatchObject({ count: 23, next: expect.stringContaining('page=2') });
      const admin = await http.post('/api/login').send({ email: 'admin@example.com', password: 'admin-demo-pass' });
      expect(admin.status).toBe(201);
    });
  });

  test('in production the development seeders stay pending and load nothing', async () => {
    const run = await data.manage(['seed'], { NODE_ENV: 'production' });
    expect(run.stdout).toBe('No seeders to apply.\nLeft pending in production (development data): 0001_demo_accounts, 0002_demo_comments\n');
    expect(await data.users()).toEqual([]);
    expect((await data.manage(['seed'])).stdout).toContain('Applied seeder 0001_demo_accounts.');
  });

  test('an empty development database gets the demo data once; a used, test or production one never', async () => {
    expect(await data.withServices(seedEmptyDevelopmentDatabase)).toBeNull();
    expect(await data.withServices(seedEmptyDevelopmentDatabase, { NODE_ENV: 'production' })).toBeNull();
    expect(await data.withServices(seedEmptyDevelopmentDatabase, { ...DEVELOPMENT, DEMO_DATA: 'false' })).toBeNull();
    expect(await data.users()).toEqual([]);
    const outcome = await data.withServices(seedEmptyDevelopmentDatabase, DEVELOPMENT);
    expect(outcome?.applied.map(({ name }) => name)).toEqual(['0001_demo_accounts', '0002_demo_comments']);
    expect(await data.withServices(seedEmptyDevelopmentDatabase, DEVELOPMENT)).toBeNull();
  });

  test('a database with an account is not seeded at start', async () => {
    await data.manage(['createuser', '--username', 'owner', '--email', 'owner@example.jp', '--password', 'x']);
    expect(await data.withServices(seedEmptyDevelopmentDatabase, DEVELOPMENT)).toBeNull();
    expect(await comments()).toBe(0);
  });

  test('a seeder whose data file is bad fails with the file and record, and leaves nothing applied', async () => {
    const error = await data
      .withServices((services) => seed(services, { dir: path.join(fixtures, 'failing'), dataDir: path.join(fixtures, 'data') }))
      .catch((thrown: unknown) => thrown);
    const reported = seedFailure(translator('en', ['cli', 'common']), error);
    expect(reported).toBeInstanceOf(CommandFailed);
    expect((reported as CommandFailed).lines[0]).toBe(
      `${path.join(fixtures, 'data', 'bad_users.json')}, record 2, field "email": Enter a valid email address.`,
    );
    expect(await data.users()).toEqual([]);
    const again = await data
      .withServices((services) => seed(services, { dir: path.join(fixtures, 'failing'), dataDir: path.join(fixtures, 'data') }))
      .catch((thrown: unknown) => thrown);
    expect(again).toBeInstanceOf(Error);
  });
});
