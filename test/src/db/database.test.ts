import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { QueryTypes } from 'sequelize';
import { ConfigError } from '../../../src/config.js';
import { openDatabase, parseDatabaseUrl } from '../../../src/db/database.js';
import { migrate } from '../../../src/db/migrator.js';
import { projectRoot } from '../../../src/paths.js';

describe('DATABASE_URL', () => {
  test.each([
    ['sqlite:data/db.sqlite3', { dialect: 'sqlite', storage: path.join(projectRoot, 'data/db.sqlite3') }],
    ['sqlite:/var/lib/app.db', { dialect: 'sqlite', storage: '/var/lib/app.db' }],
    ['sqlite:///var/lib/app.db', { dialect: 'sqlite', storage: '/var/lib/app.db' }],
    ['sqlite::memory:', { dialect: 'sqlite', storage: ':memory:' }],
    ['postgres://user:pw@127.0.0.1:5432/app', { dialect: 'postgres', url: 'postgres://user:pw@127.0.0.1:5432/app' }],
    ['postgresql://127.0.0.1/app', { dialect: 'postgres', url: 'postgresql://127.0.0.1/app' }],
  ])('%s is understood', (url, expected) => {
    expect(parseDatabaseUrl(url)).toEqual(expected);
  });

  test.each(['mysql://x', 'sqlite:', 'data/db.sqlite3'])('%s is refused with a ConfigError', (url) => {
    expect(() => parseDatabaseUrl(url)).toThrow(ConfigError);
  });

  test('a refused URL keeps its password out of the error, which the CLI and the server print', () => {
    expect(() => parseDatabaseUrl('mysql://app:s3cret-pw@db.example.com/comments')).toThrow(expect.objectContaining({ value: 'mysql://app:***@db.example.com/comments' }));
    // A password holding `/` or `@` (base64, say) is masked whole.
    expect(() => parseDatabaseUrl('mysql://app:Zm9v+YmF/y@0=@db.example.com/comments')).toThrow(expect.objectContaining({ value: 'mysql://app:***@db.example.com/comments' }));
  });
});

describe('an SQLite file database', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-db-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('is created with its folder, migrated, in WAL mode with foreign keys on', async () => {
    const file = path.join(dir, 'nested', 'app.sqlite3');
    const sequelize = openDatabase(`sqlite:${file}`);
    try {
      const applied = await migrate(sequelize);
      expect(applied).toEqual(['0001_create_users', '0002_create_comments', '0003_create_personal_access_tokens', '0004_create_sessions', '0005_comment_list_queries', '0006_create_admin_audit_log', '0007_table_versions', '0008_credential_versions']);
      expect(existsSync(file)).toBe(true);
      const pragma = (name: string) => sequelize.query(`PRAGMA ${name}`, { type: QueryTypes.SELECT, plain: true });
      expect(await pragma('journal_mode')).toEqual({ journal_mode: 'wal' });
      expect(await pragma('foreign_keys')).toEqual({ foreign_keys: 1 });
      expect(await pragma('busy_timeout')).toEqual({ timeout: 10000 });
      expect(await migrate(sequelize)).toEqual([]);
    } finally {
      await sequelize.close();
    }
  });
});
