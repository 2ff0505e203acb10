import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { DataTypes } from 'sequelize';
import { compiledReads } from '../../../src/db/compiled.js';
import { openDatabase } from '../../../src/db/database.js';
import { apiToken, createTestApp, credentials, type TestApp } from '../../helpers/app.js';

/**
 * On a SQLite file, the writes that arrive together are committed together
 * (src/db/write-batches.ts): what the clients see must be what one write at
 * a time gives.
 */
describe('many writes at once to a SQLite file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'batched-writes-'));
  let t: TestApp;
  let token = '';

  beforeAll(async () => {
    t = await createTestApp({ DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite3')}` });
    await t.createUser('alice');
    token = await apiToken(t, 'alice');
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const bearer = (request: ReturnType<TestApp['http']['get']>) => request.set('Authorization', `Bearer ${token}`).set('Accept', 'application/json');

  test('are each answered their own row, all written, and read at once by the next request', async () => {
    const created = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? bearer(t.http.post('/api/comments')).send({ title: `t${i}`, body: 'at once' }) : t.http.post('/comments/').auth(...credentials('alice')).send({ title: `t${i}`, body: 'at once' }))),
    );
    expect(created.map((res) => res.status)).toEqual(Array(30).fill(201));
    const ids = created.map((res) => Number(res.body.id ?? res.body.comment?.id));
    expect(new Set(ids).size).toBe(30);
    const titles = created.map((res) => res.body.title ?? res.body.comment?.title);
    expect(titles).toEqual(Array.from({ length: 30 }, (_, i) => `t${i}`));
    expect((await t.http.get('/comments/').auth(...credentials('alice'))).body.count).toBe(30);
    for (const id of ids.slice(0, 5)) expect((await bearer(t.http.get(`/api/comments/${id}`))).status).toBe(200);
  });

  test('updates of one row sent with the same If-Match at once: exactly one is written, the others answer 412', async () => {
    const res = await bearer(t.http.post('/api/comments')).send({ title: 'race', body: 'v0' });
    const id = Number(res.body.comment?.id ?? res.body.id);
    const etag = String(res.headers.etag);
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => bearer(t.http.patch(`/api/comments/${id}`)).set('If-Match', etag).send({ body: `v${i + 1}` })));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 412, 412, 412, 412, 412]);
    const winner = answers.find((answer) => answer.status === 200);
    const stored = await bearer(t.http.get(`/api/comments/${id}`));
    expect(stored.body.comment?.body ?? stored.body.body).toBe(winner?.body.comment?.body ?? winner?.body.body);
  });
});

describe('a SQLite file closed while writes are under way', () => {
  test('closes cleanly once every write asked for before it is written and answered', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'batched-close-'));
    const sequelize = openDatabase(`sqlite:${path.join(dir, 'db.sqlite3')}`);
    try {
      const Note = sequelize.define('Note', { title: DataTypes.STRING }, { tableName: 'notes', timestamps: false });
      await sequelize.sync();
      const reads = compiledReads(sequelize);
      const writes = Array.from({ length: 40 }, (_, i) => reads.inserted({ model: Note }, 'note', { title: `t${i}` }));
      await new Promise((resolve) => setTimeout(resolve, 1));
      await sequelize.close();
      expect((await Promise.all(writes)).map((row) => row.title)).toEqual(Array.from({ length: 40 }, (_, i) => `t${i}`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
