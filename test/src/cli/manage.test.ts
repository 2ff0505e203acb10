import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { openDatabase } from '../../../src/db/database.js';
import { projectRoot } from '../../../src/paths.js';
import { createServices, type Services } from '../../../src/services.js';
import { testConfig, TEST_ITERATIONS } from '../../helpers/app.js';
import { cli } from '../../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { unguarded } from '../../../src/throttling.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-cli-'));
let database: TestDatabase;
let databaseUrl = '';
let counter = 0;

const env = (extra: Record<string, string> = {}) => ({
  DATABASE_URL: databaseUrl,
  PASSWORD_HASH_ITERATIONS: String(TEST_ITERATIONS),
  ...extra,
});

async function withServices<T>(use: (services: Services) => Promise<T>): Promise<T> {
  const services = await createServices(testConfig({ DATABASE_URL: databaseUrl }));
  try {
    return await use(services);
  } finally {
    await services.close();
  }
}

/** The built CLI, as `npm run manage` runs it: only a process of its own has a standard output whose reader can go away. */
const MANAGE = path.join(projectRoot, 'dist/src/cli/manage.js');

/** Runs the built CLI into a pipe whose reader leaves after the first chunk, as `manage … | head -1` does. */
function intoHead(args: string[]): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, [MANAGE, ...args], { env: { PATH: process.env.PATH ?? '', ...env() }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  child.stdout.once('data', () => child.stdout.destroy());
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stderr })));
}

const userCount = () => withServices((s) => s.registry.users().model.count());
const login = (username: string, password: string) => withServices((s) => s.accounts.authenticate(username, password, unguarded));

describe('npm run manage', () => {
  // The CLI opens the database itself, so each test gets a file (or a PostgreSQL database) it can share.
  beforeEach(async () => {
    counter += 1;
    database = await createTestDatabase(`sqlite:${path.join(dir, `db${counter}.sqlite3`)}`);
    databaseUrl = database.url;
  });
  afterEach(() => database.drop());
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describe('migrate', () => {
    test('applies every migration once, then has nothing to do', async () => {
      const first = await cli(['migrate'], { env: env() });
      expect(first.status).toBe(0);
      expect(first.stdout).toMatch(/^Applied 8 migration\(s\): 0001_create_users, 0002_create_comments/);
      const second = await cli(['migrate'], { env: env() });
      expect(second.stdout).toBe('No migrations to apply.\n');
    });

    test('--plan lists what would run and runs nothing', async () => {
      const plan = await cli(['migrate', '--plan'], { env: env() });
      expect(plan.status).toBe(0);
      expect(plan.stdout).toBe('Planned operations:\n  apply 0001_create_users\n  apply 0002_create_comments\n  apply 0003_create_personal_access_tokens\n  apply 0004_create_sessions\n  apply 0005_comment_list_queries\n  apply 0006_create_admin_audit_log\n  apply 0007_table_versions\n  apply 0008_credential_versions\n');
      // Nothing ran: the plan is the same again.
      expect((await cli(['migrate', '--plan'], { env: env() })).stdout).toBe(plan.stdout);
    });

    test('goes back to a named migration, running the later ones\' down, and forward again', async () => {
      await cli(['migrate'], { env: env() });
      const plan = await cli(['migrate', '0003', '--plan'], { env: env() });
      expect(plan.stdout).toBe('Planned operations:\n  revert 0008_credential_versions\n  revert 0007_table_versions\n  revert 0006_create_admin_audit_log\n  revert 0005_comment_list_queries\n  revert 0004_create_sessions\n');
      const back = await cli(['migrate', '0003'], { env: env() });
      expect(back).toMatchObject({ status: 0, stdout: 'Reverted 5 migration(s): 0008_credential_versions, 0007_table_versions, 0006_create_admin_audit_log, 0005_comment_list_queries, 0004_create_sessions\n' });
      const database = openDatabase(databaseUrl);
      const tables = (await database.getQueryInterface().showAllTables()).map(String);
      await database.close();
      expect(tables).not.toContain('sessions');
      const forward = await cli(['migrate', '0004_create_sessions'], { env: env() });
      expect(forward.stdout).toBe('Applied 1 migration(s): 0004_create_sessions\n');
      expect((await cli(['migrate'], { env: env() })).stdout).toBe('Applied 4 migration(s): 0005_comment_list_queries, 0006_create_admin_audit_log, 0007_table_versions, 0008_credential_versions\n');
    });

    test('on a database migrated back, says nothing of the indexes its later migrations make', async () => {
      await cli(['migrate'], { env: env() });
      await cli(['migrate', '0004'], { env: env() });
      const child = spawn(process.execPath, [MANAGE, 'migrate', '--plan'], { env: { PATH: process.env.PATH ?? '', ...env() } });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString()));
      expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
      expect(output).toContain('apply 0005_comment_list_queries');
      expect(output).not.toContain('index');
    });

    test('zero reverts every migration; a name that is no single migration is refused with the names', async () => {
      await cli(['migrate'], { env: env() });
      const unknown = await cli(['migrate', '00'], { env: env() });
      expect(unknown.status).toBe(1);
      expect(unknown.stderr).toContain('No single migration is named "00"');
      const zero = await cli(['migrate', 'zero'], { env: env() });
      expect(zero.stdout).toMatch(/^Reverted 8 migration\(s\): 0008_credential_versions, 0007_table_versions, 0006_create_admin_audit_log/);
      expect((await cli(['migrate', '--plan'], { env: env() })).stdout.split('\n')).toHaveLength(10);
    });
  });

  describe('createuser', () => {
    test('creates an account that can log in, with the hasher of the product', async () => {
      const run = await cli(['createuser', '--username', 'alice', '--email', 'alice@example.com', '--password', 'pw-1'], { env: env() });
      expect(run).toMatchObject({ status: 0, stdout: 'User "alice" created.\n', stderr: '' });
      const user = await login('alice', 'pw-1');
      expect(user).toMatchObject({ username: 'alice', displayName: 'alice', isStaff: false, isSuperuser: false });
      const stored = await withServices(async (s) => (await s.accounts.findByUsername('alice', { withHidden: true }))?.get('password'));
      expect(stored).toMatch(new RegExp(`^pbkdf2_sha256\\$${TEST_ITERATIONS}\\$`));
    });

    test('takes a display name, staff and superuser flags', async () => {
      const run = await cli(
        ['createuser', '--username', 'mod', '--email', 'mod@example.com', '--name', '山田 太郎', '--password', 'x', '--staff'],
        { env: env() },
      );
      expect(run.status).toBe(0);
      expect(await login('mod', 'x')).toMatchObject({ displayName: '山田 太郎', isStaff: true, isSuperuser: false });
    });

    test('reads the password from standard input, without its line ending', async () => {
      const run = await cli(['createuser', '--username', 'bob', '--email', 'bob@example.com', '--password-stdin'], {
        env: env(),
        stdin: 'from stdin\n',
      });
      expect(run.status).toBe(0);
      expect(await login('bob', 'from stdin')).not.toBeNull();
    });

    test.each([
      ['a duplicate username', ['--username', 'alice', '--email', 'other@example.com'], 'Error: Username: This value is already in use.'],
      ['a duplicate email in another case', ['--username', 'other', '--email', 'ALICE@Example.com'], 'Error: Email address: This value is already in use.'],
      ['an invalid email', ['--username', 'other', '--email', 'not-an-email'], 'Error: Email address: Enter a valid email address.'],
      ['an invalid username', ['--username', 'has space', '--email', 'o@example.com'], 'Error: Username: A username may contain only letters, digits and @ . + - _ characters.'],
      ['a too long username', ['--username', 'u'.repeat(151), '--email', 'o@example.com'], 'Error: Username: Username may be at most 150 characters long.'],
      ['an empty username', ['--username', '', '--email', 'o@example.com'], 'Error: Username: This field may not be blank.'],
    ])('%s: a clear message, status 1, nothing written', async (_case, args, message) => {
      await cli(['createuser', '--username', 'alice', '--email', 'alice@example.com', '--password', 'x'], { env: env() });
      const run = await cli(['createuser', ...args, '--password', 'pw'], { env: env() });
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(`${message}\n`);
      expect(await userCount()).toBe(1);
    });

    test('an empty password: status 1 and nothing written', async () => {
      for (const password of ['', '   ']) {
        const run = await cli(['createuser', '--username', 'a', '--email', 'a@example.com', '--password', password], { env: env() });
        expect(run).toMatchObject({ status: 1, stderr: 'Error: Password: This field may not be blank.\n' });
      }
      const stdin = await cli(['createuser', '--username', 'a', '--email', 'a@example.com', '--password-stdin'], { env: env(), stdin: '' });
      expect(stdin).toMatchObject({ status: 1, stderr: 'Error: no password on standard input.\n' });
      expect(await userCount()).toBe(0);
    });

    test('--password and --password-stdin together are refused as conflicting, and no one is created', async () => {
      const run = await cli(['createuser', '--username', 'a', '--email', 'a@example.com', '--password', 'x', '--password-stdin'], { env: env(), stdin: 'y' });
      expect(run).toMatchObject({ status: 1, stdout: '', stderr: "error: option '--password <password>' cannot be used with option '--password-stdin'\n" });
      expect(await userCount()).toBe(0);
    });

    test('every failing field is reported at once', async () => {
      const run = await cli(['createuser', '--username', 'bad name', '--email', 'bad', '--password', ''], { env: env() });
      expect(run.status).toBe(1);
      expect(run.stderr.trim().split('\n')).toHaveLength(3);
    });

    test('missing options without a terminal: status 1 naming the option', async () => {
      const run = await cli(['createuser', '--email', 'a@example.com', '--password', 'x'], { env: env() });
      expect(run).toMatchObject({ status: 1, stderr: 'Error: --username is required when input is not a terminal.\n' });
      const noPassword = await cli(['createuser', '--username', 'a', '--email', 'a@example.com'], { env: env() });
      expect(noPassword.status).toBe(1);
      expect(noPassword.stderr).toContain('--password');
    });

    test('messages are Japanese under a Japanese locale', async () => {
      const run = await cli(['createuser', '--username', 'a', '--email', 'bad', '--password', 'x'], { env: env({ LANG: 'ja_JP.UTF-8' }) });
      expect(run.stderr).toBe('エラー: メールアドレス: 有効なメールアドレスを入力してください。\n');
    });

    test('an unusable DATABASE_URL is reported, not thrown', async () => {
      const run = await cli(['createuser', '--username', 'a', '--email', 'a@example.com', '--password', 'x'], {
        env: env({ DATABASE_URL: 'mysql://nowhere' }),
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('DATABASE_URL=mysql://nowhere');
    });

    test('an unknown option or command prints usage and fails', async () => {
      expect((await cli(['createuser', '--bogus'], { env: env() })).status).toBe(1);
      expect((await cli(['frobnicate'], { env: env() })).status).toBe(1);
    });
  });

  describe('createsuperuser', () => {
    test('with every option creates a staff superuser', async () => {
      const run = await cli(['createsuperuser', '--username', 'root', '--email', 'root@example.com', '--password', 'pw'], { env: env() });
      expect(run).toMatchObject({ status: 0, stdout: 'Superuser "root" created.\n' });
      expect(await login('root', 'pw')).toMatchObject({ isStaff: true, isSuperuser: true });
    });

    // A password typed at the prompts keeps the password rules: 'secret', which this test typed before them, is short and common.
    test('asks for what the options leave out, the password twice', async () => {
      const run = await cli(['createsuperuser'], { env: env(), answers: ['root', 'root@example.com', 'amber-orchard-71', 'amber-orchard-71'] });
      expect(run.status).toBe(0);
      expect(run.asked).toEqual(['Username', 'Email address', 'Password', 'Password (again)']);
      expect(await login('root', 'amber-orchard-71')).toMatchObject({ isSuperuser: true });
    });

    test('two different passwords at the prompts are refused, and the password is asked for again', async () => {
      const run = await cli(['createsuperuser', '--username', 'root', '--email', 'r@example.com'], {
        env: env(),
        answers: ['amber-orchard-71', 'amber-orchard-72', 'amber-orchard-71', 'amber-orchard-71'],
      });
      expect(run).toMatchObject({ status: 0, stderr: "Error: Your passwords didn't match.\n" });
      expect(run.asked).toEqual(['Password', 'Password (again)', 'Password', 'Password (again)']);
      expect(await login('root', 'amber-orchard-71')).not.toBeNull();
    });

    test('a password that breaks the rules prints why and asks whether to bypass them: yes creates the user', async () => {
      const run = await cli(['createsuperuser', '--username', 'root', '--email', 'r@example.com'], { env: env(), answers: ['1234', '1234', 'y'] });
      expect(run.status).toBe(0);
      expect(run.stderr).toBe('This password is too short. It must contain at least 8 characters.\nThis password is too common.\nThis password is entirely numeric.\n');
      expect(run.asked).toEqual(['Password', 'Password (again)', 'Bypass password validation and create user anyway?']);
      expect(await login('root', '1234')).not.toBeNull();
    });

    test('answering no to the bypass question asks for the password again', async () => {
      const run = await cli(['createsuperuser', '--username', 'root', '--email', 'r@example.com'], {
        env: env(),
        answers: ['password', 'password', 'n', 'amber-orchard-71', 'amber-orchard-71'],
      });
      expect(run.status).toBe(0);
      expect(run.stderr).toBe('This password is too common.\n');
      expect(await login('root', 'password')).toBeNull();
      expect(await login('root', 'amber-orchard-71')).not.toBeNull();
    });

    test('a password too like the username typed at the prompt is refused as well', async () => {
      const run = await cli(['createsuperuser', '--username', 'marmaduke', '--email', 'm@example.com'], { env: env(), answers: ['marmaduke1', 'marmaduke1', 'n', 'amber-orchard-71', 'amber-orchard-71'] });
      expect(run.stderr).toBe('The password is too similar to the username.\n');
      expect(run.status).toBe(0);
    });

    test('a refused email address typed at the prompt is asked for again at once, before the password', async () => {
      const run = await cli(['createsuperuser', '--username', 'root'], {
        env: env(),
        answers: ['not-an-email', 'root@example.com', 'amber-orchard-71', 'amber-orchard-71'],
      });
      expect(run).toMatchObject({ status: 0, stderr: 'Error: Email address: Enter a valid email address.\n' });
      expect(run.asked).toEqual(['Email address', 'Email address', 'Password', 'Password (again)']);
      expect(await withServices((s) => s.accounts.findByEmail('root@example.com'))).not.toBeNull();
    });

    test('a username already taken is asked for again at once, as Django says it', async () => {
      await cli(['createuser', '--username', 'taken', '--email', 'taken@example.com', '--password', 'amber-orchard-71'], { env: env() });
      const run = await cli(['createsuperuser', '--email', 'fresh@example.com'], { env: env(), answers: ['taken', 'fresh', 'amber-orchard-71', 'amber-orchard-71'] });
      expect(run.status).toBe(0);
      expect(run.stderr).toBe('Error: Username: This value is already in use.\n');
      expect(run.asked).toEqual(['Username', 'Username', 'Password', 'Password (again)']);
    });
  });

  describe('changepassword', () => {
    // The typed password keeps the password rules ('new', which this test typed before them, is too short).
    test('sets a new password; the old one stops working', async () => {
      await cli(['createuser', '--username', 'alice', '--email', 'alice@example.com', '--password', 'old'], { env: env() });
      const run = await cli(['changepassword', 'alice'], { env: env(), answers: ['amber-orchard-71', 'amber-orchard-71'] });
      expect(run).toMatchObject({ status: 0, stdout: 'Password changed for user "alice".\n' });
      expect(await login('alice', 'amber-orchard-71')).not.toBeNull();
      expect(await login('alice', 'old')).toBeNull();
    });

    test('a typed password that breaks the rules or differs is asked for again, three times at most', async () => {
      await cli(['createuser', '--username', 'alice', '--email', 'alice@example.com', '--password', 'old'], { env: env() });
      const run = await cli(['changepassword', 'alice'], { env: env(), answers: ['kX9#q', 'kX9#q', 'amber-orchard-71', 'other', 'qwertyuiop', 'qwertyuiop'] });
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(
        "This password is too short. It must contain at least 8 characters.\nError: Your passwords didn't match.\nThis password is too common.\nAborting: too many attempts, the password was not changed.\n",
      );
      expect(await login('alice', 'old')).not.toBeNull();
    });

    test('reads the new password from standard input', async () => {
      await cli(['createuser', '--username', 'alice', '--email', 'alice@example.com', '--password', 'old'], { env: env() });
      const run = await cli(['changepassword', 'alice', '--password-stdin'], { env: env(), stdin: 'piped' });
      expect(run.status).toBe(0);
      expect(await login('alice', 'piped')).not.toBeNull();
    });

    test('an unknown user or an empty password: status 1, nothing changed', async () => {
      await cli(['createuser', '--username', 'alice', '--email', 'alice@example.com', '--password', 'old'], { env: env() });
      const unknown = await cli(['changepassword', 'nobody'], { env: env(), answers: ['x', 'x'] });
      expect(unknown).toMatchObject({ status: 1, stderr: 'Error: user "nobody" does not exist.\n' });
      // A blank typed password is asked for again, as any refused one: three blank ones end the command.
      const empty = await cli(['changepassword', 'alice'], { env: env(), answers: ['', '', '', '', '', ''] });
      expect(empty.status).toBe(1);
      expect(empty.stderr).toBe(`${'Error: Password: This field may not be blank.\n'.repeat(3)}Aborting: too many attempts, the password was not changed.\n`);
      expect(await login('alice', 'old')).not.toBeNull();
    });
  });

  describe('loaddata', () => {
    test("--help says it loads every resource's rows, and users and their tokens from Django, Django REST Framework and Laravel Sanctum", async () => {
      const run = await cli(['loaddata', '--help'], { env: env() });
      expect(run.status).toBe(0);
      const help = run.stdout.replace(/\s+/g, ' ');
      expect(help).toContain("every resource's rows as dumpdata writes them");
      expect(help).toContain('users and their API tokens');
      expect(help).toContain("auth.user, Django REST Framework's authtoken.token");
      expect(help).toContain("Sanctum's personal_access_tokens");
    });
  });

  describe('openapi', () => {
    test('--check and --accept together are refused as conflicting, and nothing is checked or written', async () => {
      const run = await cli(['openapi', '--check', '--accept'], { env: env() });
      expect(run).toMatchObject({ status: 1, stdout: '', stderr: "error: option '--check' cannot be used with option '--accept'\n" });
    });

    test('--language beside --check or --accept is refused: the committed description is in English', async () => {
      for (const other of ['--check', '--accept']) {
        const run = await cli(['openapi', '--language', 'ja', other], { env: env() });
        expect(run).toMatchObject({ status: 1, stdout: '' });
        expect(run.stderr).toMatch(/^error: option '--language <language>' cannot be used with option '--(check|accept)'\n$/);
      }
    });
  });

  describe('output into a pipe', () => {
    test('stops writing quietly when the reader goes away (`| head -1`): no stack trace, status 0', async () => {
      // Both print more than a pipe holds (64 KiB), so they are still writing when the reader leaves.
      expect(await intoHead(['openapi'])).toEqual({ status: 0, stderr: '' });
      const users = path.join(dir, `users${counter}.csv`);
      writeFileSync(users, ['username,email', ...Array.from({ length: 300 }, (_, i) => `user${i},user${i}@example.com`)].join('\n'));
      expect((await cli(['loaddata', users], { env: env() })).status).toBe(0);
      expect(await intoHead(['dumpdata'])).toEqual({ status: 0, stderr: '' });
    });
  });

  describe('prunetokens', () => {
    const HOUR = 3_600_000;
    const tokenModel = (services: Services) => {
      const bound = services.registry.tokens();
      if (!bound) throw new Error('no token model');
      return bound.model;
    };

    /** Tokens of alice that expired this many hours ago (null: no expiry of their own); their names. */
    async function tokensExpired(hoursAgo: (number | null)[]): Promise<void> {
      await cli(['createuser', '--username', 'alice', '--email', 'alice@example.com', '--password', 'pw'], { env: env() });
      await withServices(async (services) => {
        const user = await services.accounts.authenticate('alice', 'pw', unguarded);
        if (!user || !services.tokens) throw new Error('no user or no tokens');
        for (const [index, hours] of hoursAgo.entries()) {
          const id = Number((await services.tokens.issue(user, `token-${index}`)).split('|')[0]);
          const expiresAt = hours === null ? null : new Date(Date.now() - hours * HOUR);
          await tokenModel(services).update({ expires_at: expiresAt }, { where: { id } });
        }
      });
    }
    const tokenNames = () => withServices(async (s) => (await tokenModel(s).findAll({ order: [['id', 'ASC']] })).map((row) => row.get('name')));

    test('deletes the tokens expired more than 24 hours ago, and keeps recently expired and unexpired ones', async () => {
      await tokensExpired([48, 2, null, -5]);
      const run = await cli(['prunetokens'], { env: env() });
      expect(run).toMatchObject({ status: 0, stdout: 'Deleted 1 token(s) expired more than 24 hour(s) ago.\n' });
      expect(await tokenNames()).toEqual(['token-1', 'token-2', 'token-3']);
      expect((await cli(['prunetokens', '--hours', '1'], { env: env() })).stdout).toBe('Deleted 1 token(s) expired more than 1 hour(s) ago.\n');
      expect(await tokenNames()).toEqual(['token-2', 'token-3']);
    });

    test('counts the configured lifetime from a token\'s creation, and refuses hours that are no whole number', async () => {
      await tokensExpired([null]);
      const lifetime = env({ TOKEN_EXPIRATION_MINUTES: '1' });
      expect((await cli(['prunetokens', '--hours', '0'], { env: lifetime })).stdout).toBe('Deleted 0 token(s) expired more than 0 hour(s) ago.\n');
      await withServices((s) => tokenModel(s).update({ created_at: new Date(Date.now() - 2 * 60_000) }, { where: {}, silent: true }));
      expect((await cli(['prunetokens', '--hours', '0'], { env: lifetime })).stdout).toBe('Deleted 1 token(s) expired more than 0 hour(s) ago.\n');
      const refused = await cli(['prunetokens', '--hours', '1.5'], { env: env() });
      expect(refused).toMatchObject({ status: 1, stderr: '--hours 1.5: expected a whole number of hours.\n' });
    });
  });
});

describe('a DATABASE_URL of no form the CLI reads', () => {
  test('is said as a refused setting, with the forms it takes and without its password', async () => {
    const run = await cli(['migrate', '--plan'], { env: { DATABASE_URL: 'mysql://app:s3cret-pw@db.example.com/comments' } });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('Invalid setting DATABASE_URL=mysql://app:***@db.example.com/comments: expected sqlite:<path>, sqlite::memory: or postgres://….\n');
  });
});
