import path from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { useTestApp } from '../../helpers/app.js';
import { adminAgent, openEditForm, submit, type Agent } from '../../helpers/admin.js';
import { loadDeclarations, WITH_HIDDEN } from '../../../src/registry.js';
import { defineResource, field } from '../../../src/resource.js';
import { bookFields, Genre } from '../../fixtures/admin-books/resources.js';
import { migrationsDir, projectRoot } from '../../../src/paths.js';

const LOAD_TIMEOUT = 60_000;
const SIMULTANEOUS = 4;
const CHANGED_EN = 'Someone changed this row after you opened this form, so nothing was saved. Reload the form to see the row as it is now; what you typed here will be lost, so copy anything you need first.';
const DELETED_EN = 'Someone deleted this row after you opened this form, so nothing was saved.';
const FIELD_EN = 'Someone else changed this field after you opened this form.';
const CHANGED_JA = 'このフォームを開いた後に他の人がこの行を変更したため、保存しませんでした。フォームを再読み込みすると現在の内容が表示されます。ここで入力した内容は失われるので、必要なものは先にコピーしてください。';

// Lost-update protection: an edit form saved after its row changed (or went) since it was opened does not overwrite it.
describe('an admin edit form whose row changed meanwhile', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('root', { superuser: true, staff: true, name: 'Root' });
    await app.createUser('alice', { name: 'Alice Liddell' });
  });
  let root: Agent;
  const comments = () => t.services.registry.get('Comment').model;
  const users = () => t.services.registry.users().model.scope(WITH_HIDDEN);
  const newComment = async (title: string): Promise<number> => {
    const alice = await t.services.accounts.findByUsername('alice');
    const row = await comments().create({ title, body: `Body of ${title}`, user_id: alice?.get('id') });
    return row.get('id') as number;
  };
  const stored = async (id: number) => (await comments().findByPk(id))?.get({ plain: true }) as Record<string, unknown> | undefined;

  beforeAll(async () => {
    await t.app.warm();
    root = await adminAgent(t, 'root', 'root-password');
  }, LOAD_TIMEOUT);

  test('the form carries a version of the row it was opened with; it is the same until the row changes', async () => {
    const id = await newComment('Versioned');
    const first = await openEditForm(root, 'comments', id);
    const version = first.params.__version;
    expect(typeof version).toBe('string');
    expect((await openEditForm(root, 'comments', id)).params.__version).toBe(version);
    await comments().update({ body: 'Changed elsewhere' }, { where: { id } });
    expect((await openEditForm(root, 'comments', id)).params.__version).not.toBe(version);
  });

  test('a save from a form opened before another change is refused: the row keeps the other change, the form what was typed', async () => {
    const id = await newComment('Original');
    const form = await openEditForm(root, 'comments', id);
    // Someone else, through the API's model, changes the row after the form was opened.
    await comments().update({ title: 'Changed by someone else' }, { where: { id } });
    const before = await stored(id);

    const res = await form.save({ title: 'Typed in the admin' });
    expect(res.status).toBe(200);
    expect(res.body.notice).toEqual({ message: CHANGED_EN, type: 'error' });
    expect(res.body.record.baseError).toEqual({ message: CHANGED_EN, type: 'conflict' });
    expect(res.body.redirectUrl).toBeUndefined();
    // The field someone else changed says so; the others do not.
    expect(res.body.record.errors).toEqual({
      title: { message: FIELD_EN, type: 'conflict' },
      __version: { message: CHANGED_EN, type: 'conflict' },
    });
    // The form keeps what was typed, and its old version: saving again is refused again until it is reloaded.
    expect(res.body.record.params.title).toBe('Typed in the admin');
    expect(res.body.record.params.__version).toBe(form.params.__version);
    expect(await stored(id)).toEqual(before);
    expect((await stored(id))?.title).toBe('Changed by someone else');
    expect((await form.save({ title: 'Typed in the admin' })).body.record.baseError?.type).toBe('conflict');
    expect((await stored(id))?.title).toBe('Changed by someone else');
  });

  test('the warning is in Japanese for a staff member who reads Japanese', async () => {
    const id = await newComment('Japanese');
    const form = await openEditForm(root, 'comments', id);
    await comments().update({ body: '別の人の変更' }, { where: { id } });
    const res = await form.save({ title: '管理画面で入力' }, 'ja');
    expect(res.body.notice).toEqual({ message: CHANGED_JA, type: 'error' });
    expect(Object.keys(res.body.record.errors).sort()).toEqual(['__version', 'body']);
    expect(res.body.record.errors.body.message).toBe('このフォームを開いた後に他の人がこの項目を変更しました。');
    expect((await stored(id))?.title).toBe('Japanese');
  });

  test('a save from a form opened on the current row is saved, and gives the form the new version', async () => {
    const id = await newComment('Fresh');
    const form = await openEditForm(root, 'comments', id);
    const res = await form.save({ title: 'Saved in the admin' });
    expect(res.body.notice).toEqual({ message: 'successfullyUpdated', type: 'success' });
    expect(res.body.record.errors).toEqual({});
    expect((await stored(id))?.title).toBe('Saved in the admin');
    const reloaded = await openEditForm(root, 'comments', id);
    expect(res.body.record.params.__version).toBe(reloaded.params.__version);
    expect(reloaded.params.__version).not.toBe(form.params.__version);
    // The form that was saved is now stale itself: a second save of it would overwrite the first.
    expect((await form.save({ title: 'Saved twice' })).body.record.baseError?.type).toBe('conflict');
    expect((await reloaded.save({ title: 'Saved twice' })).body.notice.type).toBe('success');
    expect((await stored(id))?.title).toBe('Saved twice');
  });

  test('forms opened at the same version and saved at once: exactly one saves, the others are warned, and the log has one entry', async () => {
    const id = await newComment('Raced');
    const forms = await Promise.all(Array.from({ length: SIMULTANEOUS }, () => openEditForm(root, 'comments', id)));
    const answers = await Promise.all(forms.map((form, index) => form.save({ title: `Saved by staff ${index}` })));
    const saved = answers.filter((res) => res.body.notice?.type === 'success');
    expect(saved).toHaveLength(1);
    for (const res of answers.filter((answer) => answer.body.notice?.type !== 'success')) {
      expect(res.body.notice).toEqual({ message: CHANGED_EN, type: 'error' });
      expect(res.body.record.errors.title).toEqual({ message: FIELD_EN, type: 'conflict' });
    }
    expect((await stored(id))?.title).toBe(saved[0]!.body.record.params.title);
    const entries = await t.services.sequelize.query("SELECT record_id FROM admin_audit_log WHERE resource = 'comments' AND action = 'edit' AND record_id = :id", {
      replacements: { id: String(id) },
      type: 'SELECT',
    });
    expect(entries).toHaveLength(1);
  });

  test('a save after the row was deleted says so and writes nothing', async () => {
    const id = await newComment('Doomed');
    const form = await openEditForm(root, 'comments', id);
    await comments().destroy({ where: { id } });
    const res = await form.save({ title: 'Typed for nothing' });
    expect(res.status).toBe(200);
    expect(res.body.notice).toEqual({ message: DELETED_EN, type: 'error' });
    expect(res.body.record.baseError).toEqual({ message: DELETED_EN, type: 'deleted' });
    expect(await stored(id)).toBeUndefined();
    expect(await comments().count({ where: { title: 'Typed for nothing' } })).toBe(0);
  });

  test('a change the form cannot write (a login, a password) is no conflict; neither is a payload without a version', async () => {
    const alice = await t.services.accounts.findByUsername('alice');
    const id = alice?.get('id') as number;
    const form = await openEditForm(root, 'users', id);
    await users().update({ last_login: new Date(), remember_token: 'another-remember-token' }, { where: { id } });
    await t.services.accounts.setPassword('alice', 'a-new-secret-pass');
    const res = await form.save({ name: 'Alice Changed' });
    expect(res.body.notice).toEqual({ message: 'successfullyUpdated', type: 'success' });
    expect((await users().findByPk(id))?.get('name')).toBe('Alice Changed');

    const commentId = await newComment('Unversioned');
    await comments().update({ body: 'Changed elsewhere' }, { where: { id: commentId } });
    const bare = await submit(root, `comments/records/${commentId}/edit`, { title: 'Without a version' });
    expect(bare.body.notice.type).toBe('success');
    expect((await stored(commentId))?.title).toBe('Without a version');
  });

  test('the edit form, version and all, carries no secret of the row', async () => {
    const alice = await users().findOne({ where: { username: 'alice' } });
    const form = await openEditForm(root, 'users', alice?.get('id') as number);
    const text = JSON.stringify(form.params);
    expect(text).not.toContain(String(alice?.get('password')));
    expect(Object.keys(form.params)).not.toContain('password');
    expect(Object.keys(form.params)).not.toContain('remember_token');
  });
});

// Every field kind a form writes, on field-kinds.test.ts's books (their tables in test/fixtures/admin-books/migrations).
const Author = defineResource({
  name: 'Author',
  table: 'authors',
  fields: { id: field.id(), name: field.string({ maxLength: 100 }) },
  displayField: 'name',
});
const Book = defineResource({
  name: 'Book',
  table: 'books',
  fields: {
    ...bookFields(),
    internal_code: field.string({ maxLength: 20, nullable: true, hidden: true }),
  },
  displayField: 'title',
});

const projectDeclarations = await loadDeclarations();

describe('an admin edit form of a row with every field kind', () => {
  const t = useTestApp(
    async (app) => {
      await app.createUser('root', { superuser: true, staff: true, name: 'Root' });
    },
    {},
    {
      declarations: [...projectDeclarations, Author, Genre, Book],
      migrationDirs: [migrationsDir, path.join(projectRoot, 'test', 'fixtures', 'admin-books', 'migrations')],
    },
  );
  let root: Agent;
  const model = (name: string) => t.services.registry.get(name).model;
  const ids = { author: 0, fantasy: 0, scifi: 0 };
  beforeAll(async () => {
    await t.app.warm();
    root = await adminAgent(t, 'root', 'root-password');
    ids.author = (await model('Author').create({ name: 'Ursula' })).get('id') as number;
    ids.fantasy = (await model('Genre').create({ name: 'Fantasy' })).get('id') as number;
    ids.scifi = (await model('Genre').create({ name: 'Science fiction' })).get('id') as number;
  }, LOAD_TIMEOUT);

  /** A book with a value in every field, made in the admin as staff would. */
  const newBook = async (title: string): Promise<number> => {
    const res = await submit(root, 'books/actions/new', {
      title,
      format: 'paperback',
      pages: '304',
      price: '12.5',
      published_on: '1969-03-01',
      details: '{"isbn": "978-0-441-47812-5", "awards": ["Hugo", "Nebula"]}',
      author_id: String(ids.author),
      'genres.0': String(ids.scifi),
    });
    expect(res.body.record.errors).toEqual({});
    return res.body.record.id as number;
  };
  const link = (book: number, genre: number) => {
    const relation = t.services.registry.get('Book').relations.get('genres');
    if (relation?.kind !== 'manyToMany') throw new Error('no genres relation');
    return relation.join.model.create({ book_id: book, genre_id: genre });
  };

  test('a form saved as it was opened is saved: the version of every kind of value reads the same twice', async () => {
    const id = await newBook('Unchanged');
    const form = await openEditForm(root, 'books', id);
    // A computed count and a hidden field are no part of what the form overwrites.
    await model('Book').update({ internal_code: 'X-1' }, { where: { id } });
    const res = await form.save({ title: 'Retitled' });
    expect(res.body.record.errors).toEqual({});
    expect(res.body.notice.type).toBe('success');
    expect((await model('Book').findByPk(id))?.get('title')).toBe('Retitled');
  });

  test('a genre linked, JSON or a decimal changed elsewhere makes the form stale, and names those fields', async () => {
    const id = await newBook('Linked');
    const form = await openEditForm(root, 'books', id);
    await link(id, ids.fantasy);
    const linked = await form.save({ title: 'Lost update' });
    expect(Object.keys(linked.body.record.errors).sort()).toEqual(['__version', 'genres']);

    const second = await openEditForm(root, 'books', id);
    await model('Book').update({ details: { isbn: 'changed' }, price: '13.00' }, { where: { id } });
    const changed = await second.save({ title: 'Lost update' });
    expect(Object.keys(changed.body.record.errors).sort()).toEqual(['__version', 'details', 'price']);
    const row = await model('Book').findByPk(id);
    expect(row?.get('title')).toBe('Linked');
    expect(row?.get('details')).toEqual({ isbn: 'changed' });
  });
});
