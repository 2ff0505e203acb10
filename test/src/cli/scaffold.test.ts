import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { seed } from '../../../src/db/seeder.js';
import { packageName } from '../../../src/paths.js';
import { createTestClient } from '../../../src/testing/index.js';
import { TEST_ITERATIONS } from '../../helpers/app.js';
import { cli } from '../../helpers/cli.js';

let scratch = '';
beforeAll(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'startproject-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const env = (root: string): Record<string, string> => ({ APP_ROOT: root, DATABASE_URL: 'sqlite::memory:', PASSWORD_HASH_ITERATIONS: String(TEST_ITERATIONS) });
const filesUnder = (dir: string, prefix = ''): string[] =>
  readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(dir, path.join(prefix, entry.name)) : [path.join(prefix, entry.name)],
  );

describe('startproject', () => {
  let project = '';
  beforeAll(async () => {
    project = path.join(scratch, 'notebook');
    const run = await cli(['startproject', 'Notebook', project], { env: {} });
    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).toContain('npm install && npm start');
  });

  it('writes an application a newcomer runs with npm install, npm start and npm test', () => {
    expect(filesUnder(project).sort()).toEqual(
      expect.arrayContaining([
        '.gitignore',
        'README.md',
        'package.json',
        'tsconfig.json',
        'resources/note.ts',
        'resources/migrations/0001_initial.ts',
        'resources/migrations/schema.json',
        'locales/en/resources.json',
        'locales/ja/resources.json',
        'seeders/0001_demo_accounts.ts',
        'test/notes.test.ts',
        'test/api.test.ts',
      ]),
    );
    const manifest = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')) as { name: string; dependencies: Record<string, string>; scripts: Record<string, string> };
    const framework = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(manifest.name).toBe('notebook');
    expect(manifest.dependencies).toMatchObject({ [packageName]: `^${framework.version}` });
    expect(Object.keys(manifest.scripts)).toEqual(expect.arrayContaining(['start', 'test']));
    expect(readFileSync(path.join(project, 'README.md'), 'utf8')).toMatch(/^# Notebook\n/);
  });

  it('gives it a migration that builds what its declarations and the default account and token models need', async () => {
    const check = await cli(['makemigrations', '--check'], { env: env(project) });
    expect(check).toMatchObject({ status: 0, stderr: '' });
    const checks = await cli(['check', '--fail-level', 'warning'], { env: env(project) });
    expect(checks).toMatchObject({ status: 0 });
  });

  it('serves its sample resource on both APIs with the default accounts and tokens, and loads its demo data', async () => {
    const client = await createTestClient({ app: project });
    try {
      const hanako = await client.createUser('hanako');
      const made = await client.actingAs(hanako).post('/notes/').send({ title: 'Hello', body: 'First.' }).expect(201);
      const login = await client.anonymous.post('/api/login').send({ email: 'hanako@example.com', password: 'hanako-password' }).expect(201);
      const token = (login.body as { token: string }).token;
      const read = await client.withToken(token).get(`/api/notes/${(made.body as { id: number }).id}`).expect(200);
      expect(read.body).toMatchObject({ note: { id: (made.body as { id: number }).id, title: 'Hello', body: 'First.' } });
      expect((await client.withToken(token).get('/api/user').expect(200)).body).toMatchObject({ user: { email: 'hanako@example.com' } });
      const outcome = await seed(client.services);
      expect(outcome.applied.map(({ name }) => name)).toEqual(['0001_demo_accounts', '0002_demo_notes']);
      expect(await client.services.registry.get('Note').model.count()).toBe(4);
      expect(await client.undocumentedAnswers()).toEqual([]);
      // Its name, not the framework's or another application's, titles its pages, its admin and its API.
      expect((await client.anonymous.get('/openapi.json').expect(200)).body).toMatchObject({ info: { title: 'Notebook' } });
      expect((await client.anonymous.get('/api-auth/login/').set('Accept-Language', 'en')).text).toContain('Notebook');
    } finally {
      await client.close();
    }
  });

  it('refuses a folder that is not empty, and a name that cannot be a package, writing nothing', async () => {
    const taken = await cli(['startproject', 'Notebook', project], { env: {} });
    expect(taken.status).toBe(1);
    expect(taken.stderr).toContain('is not empty');
    const bad = await cli(['startproject', '../evil', path.join(scratch, 'evil')], { env: {} });
    expect(bad.status).toBe(1);
    expect(existsSync(path.join(scratch, 'evil'))).toBe(false);
  });
});

describe('startresource', () => {
  it('adds a declaration and its labels, whose table makemigrations then writes', async () => {
    const project = path.join(scratch, 'shop');
    expect((await cli(['startproject', 'shop', project], { env: {} })).status).toBe(0);
    const run = await cli(['startresource', 'BlogPost'], { env: env(project) });
    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(readFileSync(path.join(project, 'resources', 'blog_post.ts'), 'utf8')).toContain(`from '${packageName}'`);
    expect(JSON.parse(readFileSync(path.join(project, 'locales', 'ja', 'resources.json'), 'utf8'))).toHaveProperty('blogpost.name');
    expect((await cli(['makemigrations', '--check'], { env: env(project) })).status).toBe(1);
    const made = await cli(['makemigrations', '--name', 'blog_posts'], { env: env(project) });
    expect(made.stdout).toContain('+ table blog_posts (id, name, owner_id, created_at, updated_at)');
    expect((await cli(['startresource', 'BlogPost'], { env: env(project) })).status).toBe(1);
    expect((await cli(['startresource', 'blog post'], { env: env(project) })).status).toBe(1);
  });
});

describe('check, before anything is migrated', () => {
  it('names each migration or seeder file the start could not load, and the mistake', async () => {
    const project = path.join(scratch, 'broken');
    expect((await cli(['startproject', 'broken', project], { env: {} })).status).toBe(0);
    writeFileSync(path.join(project, 'resources', 'migrations', '0002_nothing.ts'), 'export const down = async () => undefined;\n');
    writeFileSync(path.join(project, 'seeders', '0003_typo.ts'), "import { nothing } from './no-such-file.js';\nexport default nothing;\n");
    const run = await cli(['check'], { env: env(project) });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/\(migrations\.E002\) \S*broken\/resources\/migrations\/0002_nothing\.ts cannot be loaded as a migration/);
    expect(run.stderr).toMatch(/\(seeders\.E001\) \S*broken\/seeders\/0003_typo\.ts cannot be loaded as a seeder [^]*no-such-file/);
  });
});

describe('an application with only resources/', () => {
  it('starts without seeders, locales or migrations of its own beyond its tables', async () => {
    const project = path.join(scratch, 'bare');
    expect((await cli(['startproject', 'bare', project], { env: {} })).status).toBe(0);
    for (const dir of ['seeders', 'locales', 'test']) rmSync(path.join(project, dir), { recursive: true });
    writeFileSync(path.join(project, 'README.md'), '');
    const client = await createTestClient({ app: project });
    try {
      expect((await seed(client.services)).applied).toEqual([]);
      const alice = await client.createUser('alice');
      await client.actingAs(alice).get('/notes/').expect(200);
      // Served on a port for clients that speak HTTP themselves, and stopped with the client.
      const url = await client.serve();
      expect((await fetch(new URL('/notes/', url), { headers: { accept: 'application/json' } })).status).toBe(401);
    } finally {
      await client.close();
    }
  });
});
