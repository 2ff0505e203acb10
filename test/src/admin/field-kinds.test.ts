import path from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { useTestApp } from '../../helpers/app.js';
import { adminAgent, submit, type Agent } from '../../helpers/admin.js';
import { createAdmin } from '../../../src/admin/index.js';
import { loadDeclarations } from '../../../src/registry.js';
import { defineResource, field } from '../../../src/resource.js';
import { bookFields, Genre } from '../../fixtures/admin-books/resources.js';
import { migrationsDir, projectRoot } from '../../../src/paths.js';
import { auditModel } from '../../../src/admin/audit.js';

/**
 * Every field kind in the admin, on a throwaway set of resources declared
 * here (their tables in test/fixtures/admin-books/migrations): a Book with an
 * enum, an integer, a decimal, a date, JSON, a writable reference to an
 * Author, many-to-many Genres and computed values.
 */
const MIGRATIONS = path.join(projectRoot, 'test', 'fixtures', 'admin-books', 'migrations');
const LOAD_TIMEOUT = 60_000;
// AdminJS's marker for an emptied array (frontend/hooks/use-record/params-to-form-data).
const EMPTY_ARRAY = '__FORM_VALUE_EMPTY_ARRAY__';

/** Who each create's hook saw as the writer. */
const writers: (string | null)[] = [];

const Author = defineResource({
  name: 'Author',
  table: 'authors',
  fields: {
    id: field.id(),
    name: field.string({ maxLength: 100 }),
    book_count: field.count('books'),
  },
  displayField: 'name',
});


const Book = defineResource({
  name: 'Book',
  table: 'books',
  fields: {
    ...bookFields(),
    shout: field.computed('string', (row) => String(row.title ?? '').toUpperCase()),
    internal_code: field.string({ maxLength: 20, nullable: true, hidden: true }),
  },
  displayField: 'title',
  hooks: {
    beforeCreate: (ctx) => {
      writers.push(ctx.user?.username ?? null);
    },
    // After the row and its links are written: a refusal must undo both.
    afterUpdate: (ctx) => {
      if (ctx.data.title === 'Forbidden') ctx.refuse('title', 'forbidden_title');
    },
    // After the row is deleted: a bulk delete must undo the rows deleted before it too.
    afterDestroy: (ctx) => {
      if (ctx.row?.get('title') === 'Undeletable') ctx.refuse('non_field_errors', 'undeletable');
    },
  },
});

const projectDeclarations = await loadDeclarations();

interface RecordJson {
  id: number;
  params: Record<string, unknown>;
  populated: Record<string, { title: string } | undefined>;
  errors: Record<string, { message: string } | undefined>;
}

describe('the admin with every field kind', () => {
  const t = useTestApp(
    async (app) => {
      await app.createUser('root', { superuser: true, staff: true, name: 'Root' });
    },
    {},
    { declarations: [...projectDeclarations, Author, Genre, Book], migrationDirs: [migrationsDir, MIGRATIONS] },
  );
  let root: Agent;
  const ids = { author: '', fantasy: '', scifi: '', essay: '' };
  beforeAll(async () => {
    await t.app.warm();
    root = await adminAgent(t, 'root', 'root-password');
    const model = (name: string) => t.services.registry.get(name).model;
    ids.author = String((await model('Author').create({ name: 'Ursula' })).get('id'));
    ids.fantasy = String((await model('Genre').create({ name: 'Fantasy' })).get('id'));
    ids.scifi = String((await model('Genre').create({ name: 'Science fiction' })).get('id'));
    ids.essay = String((await model('Genre').create({ name: 'Essay' })).get('id'));
  }, LOAD_TIMEOUT);

  const links = async (book: string): Promise<number[]> => {
    const join = t.services.registry.get('Book').relations.get('genres');
    if (join?.kind !== 'manyToMany') throw new Error('no genres relation');
    const rows = await join.join.model.findAll({ where: { book_id: Number(book) }, order: [['genre_id', 'ASC']] });
    return rows.map((row) => Number(row.get('genre_id')));
  };
  const show = async (book: string): Promise<RecordJson> => {
    const res = await root.get(`/admin/api/resources/books/records/${book}/show`);
    expect(res.status).toBe(200);
    return res.body.record as RecordJson;
  };
  const create = (fields: Record<string, string>) => submit(root, 'books/actions/new', { title: 'A book', format: 'ebook', ...fields });
  const bookCount = () => t.services.registry.get('Book').model.count();

  let book = '';

  test('a book created with its genres is written with every value, through the hooks, as the staff member', async () => {
    const res = await create({
      title: 'The Left Hand of Darkness',
      format: 'paperback',
      pages: '304',
      price: '12.5',
      published_on: '1969-03-01',
      details: '{"isbn": "978-0-441-47812-5", "awards": ["Hugo", "Nebula"]}',
      author_id: ids.author,
      'genres.0': ids.scifi,
      'genres.1': ids.fantasy,
    });
    expect(res.status).toBe(200);
    expect(res.body.record.errors).toEqual({});
    expect(res.body.notice).toEqual({ message: 'successfullyCreated', type: 'success' });
    book = String(res.body.record.params.id);
    expect(await links(book)).toEqual([Number(ids.fantasy), Number(ids.scifi)].sort((a, b) => a - b));
    expect(writers).toEqual(['root']);
    const row = await t.services.registry.get('Book').model.findByPk(Number(book));
    expect(row?.get('format')).toBe('paperback');
    expect(row?.get('pages')).toBe(304);
    expect(Number(row?.get('price'))).toBe(12.5);
    expect(row?.get('published_on')).toBe('1969-03-01');
    expect(row?.get('details')).toEqual({ isbn: '978-0-441-47812-5', awards: ['Hugo', 'Nebula'] });
    expect(row?.get('author_id')).toBe(Number(ids.author));
  });

  test('the record shows the enum, numbers, date, JSON, reference, genres and computed values, never the hidden field', async () => {
    await t.services.registry.get('Book').model.update({ internal_code: 'SECRET-42' }, { where: { id: Number(book) } });
    const record = await show(book);
    const { params } = record;
    expect(params).toMatchObject({
      title: 'The Left Hand of Darkness',
      format: 'paperback',
      pages: 304,
      price: '12.50',
      published_on: '1969-03-01',
      author_id: Number(ids.author),
      genre_count: 2,
      shout: 'THE LEFT HAND OF DARKNESS',
    });
    expect(JSON.parse(String(params.details))).toEqual({ isbn: '978-0-441-47812-5', awards: ['Hugo', 'Nebula'] });
    const genres = [params['genres.0'], params['genres.1']].map(Number).sort((a, b) => a - b);
    expect(genres).toEqual([Number(ids.fantasy), Number(ids.scifi)].sort((a, b) => a - b));
    expect(record.populated.author_id?.title).toBe('Ursula');
    expect([record.populated['genres.0']?.title, record.populated['genres.1']?.title].sort()).toEqual(['Fantasy', 'Science fiction']);
    expect(Object.keys(params).some((key) => key.startsWith('internal_code'))).toBe(false);
    const page = await root.get(`/admin/api/resources/books/records/${book}/edit`);
    expect(page.text).not.toContain('SECRET-42');
  });

  test('the resource tells AdminJS each kind: choices, numbers, a date, JSON text, pickers, read-only computed values', async () => {
    const admin = createAdmin(t.services.registry, t.services.accounts);
    const staff = { id: '1', email: 'root', title: 'Root', isSuperuser: true, language: 'en' as const };
    const decorated = admin.findResource('books').decorate().toJSON(staff);
    const property = (name: string) => decorated.properties[name];
    expect(Object.keys(decorated.properties)).not.toContain('internal_code');
    expect(property('format')).toMatchObject({ type: 'string', availableValues: [{ value: 'hardcover', label: 'hardcover' }, { value: 'paperback', label: 'paperback' }, { value: 'ebook', label: 'ebook' }] });
    expect(property('pages')).toMatchObject({ type: 'number' });
    expect(property('price')).toMatchObject({ type: 'float' });
    expect(property('published_on')).toMatchObject({ type: 'date' });
    expect(property('details')).toMatchObject({ type: 'textarea', isSortable: false });
    expect(property('author_id')).toMatchObject({ type: 'reference', reference: 'authors' });
    expect(property('genres')).toMatchObject({ type: 'reference', reference: 'genres', isArray: true, isSortable: false });
    expect(property('genre_count')).toMatchObject({ type: 'number', isSortable: false });
    expect(decorated.editProperties.map((shown) => shown.name)).toEqual(['title', 'format', 'pages', 'price', 'published_on', 'details', 'author_id', 'genres']);
    expect(decorated.showProperties.map((shown) => shown.name)).toEqual(expect.arrayContaining(['genres', 'genre_count', 'shout']));
    expect(decorated.filterProperties.map((shown) => shown.name)).toEqual(['id', 'title', 'format', 'pages', 'price', 'published_on', 'author_id']);
  });

  test('an edit that leaves out a genre unlinks it; an emptied selection unlinks them all; a form without the field keeps them', async () => {
    const kept = await submit(root, `books/records/${book}/edit`, { title: 'The Left Hand of Darkness', format: 'paperback', 'genres.0': ids.scifi });
    expect(kept.body.record.errors).toEqual({});
    expect(await links(book)).toEqual([Number(ids.scifi)]);
    const record = await show(book);
    expect(record.params.genre_count).toBe(1);
    expect(record.params['genres.0']).toBe(Number(ids.scifi));
    expect(record.params['genres.1']).toBeUndefined();

    await submit(root, `books/records/${book}/edit`, { title: 'Renamed' }).expect(200);
    expect(await links(book)).toEqual([Number(ids.scifi)]);

    const emptied = await submit(root, `books/records/${book}/edit`, { genres: EMPTY_ARRAY });
    expect(emptied.body.record.errors).toEqual({});
    expect(await links(book)).toEqual([]);
    expect((await show(book)).params.genre_count).toBe(0);

    // A plain form's empty value clears them too; one plain value is one genre.
    await submit(root, `books/records/${book}/edit`, { genres: ids.essay }).expect(200);
    expect(await links(book)).toEqual([Number(ids.essay)]);
    await submit(root, `books/records/${book}/edit`, { genres: '' }).expect(200);
    expect(await links(book)).toEqual([]);
  });

  test("saving the edit form as AdminJS's page posts it (every param back, computed ones too) changes nothing", async () => {
    const before = await show(book);
    // params-to-form-data: null as its marker, every other value as text.
    const form = Object.fromEntries(Object.entries(before.params).map(([key, value]) => [key, value === null ? '__FORM_VALUE_NULL__' : String(value)]));
    const res = await submit(root, `books/records/${book}/edit`, form);
    expect(res.body.record.errors).toEqual({});
    const after = await show(book);
    expect(after.params).toEqual(before.params);
  });

  test('any JSON value round-trips as its text', async () => {
    for (const value of ['"plain text"', '[1, 2.5, null]', '42', 'true', '{"nested": {"deep": [{}]}}']) {
      const res = await submit(root, `books/records/${book}/edit`, { details: value });
      expect([value, res.body.record.errors]).toEqual([value, {}]);
      expect([value, JSON.parse(String((await show(book)).params.details))]).toEqual([value, JSON.parse(value)]);
    }
  });

  test('empty fields of nullable columns become null', async () => {
    const res = await submit(root, `books/records/${book}/edit`, { pages: '', price: '', published_on: '', details: '', author_id: '' });
    expect(res.body.record.errors).toEqual({});
    const row = await t.services.registry.get('Book').model.findByPk(Number(book));
    expect([row?.get('pages'), row?.get('price'), row?.get('published_on'), row?.get('details'), row?.get('author_id')]).toEqual([null, null, null, null, null]);
  });

  test('an invalid choice, number, date or JSON text is a field error, and nothing is written', async () => {
    const before = await bookCount();
    const res = await create({ format: 'novel', pages: 'many', price: '1.234', published_on: '2024-02-30', details: '{not json' });
    expect(res.status).toBe(200);
    expect(res.body.notice.type).toBe('error');
    const errors = res.body.record.errors as RecordJson['errors'];
    expect(Object.keys(errors).sort()).toEqual(['details', 'format', 'pages', 'price', 'published_on']);
    expect(errors.format?.message).toBe('"novel" is not a valid choice.');
    expect(errors.pages?.message).toBe('A valid integer is required.');
    expect(errors.details?.message).toBe('Value must be valid JSON.');
    expect(errors.published_on?.message).toMatch(/YYYY-MM-DD/);
    for (const pages of ['0x10', '1e3', '12.5']) {
      const refused = await create({ pages });
      expect([pages, Object.keys(refused.body.record.errors)]).toEqual([pages, ['pages']]);
    }
    const below = await create({ pages: '0' });
    expect(below.body.record.errors.pages.message).toMatch(/greater than or equal to 1/);
    expect(await bookCount()).toBe(before);
  });

  test('an unknown author or genre id is a field error, and nothing is written', async () => {
    const before = await bookCount();
    const author = await create({ author_id: '999999' });
    expect(author.body.record.errors.author_id.message).toBe('Invalid pk "999999" - object does not exist.');
    const genre = await create({ 'genres.0': ids.fantasy, 'genres.1': '999999' });
    expect(genre.body.record.errors.genres.message).toBe('Invalid pk "999999" - object does not exist.');
    const text = await create({ author_id: 'abc', 'genres.0': 'abc' });
    expect(Object.keys(text.body.record.errors).sort()).toEqual(['author_id', 'genres']);
    expect(await bookCount()).toBe(before);
  });

  test("a hook's refusal is a field error in the resource's own words, and the write is undone", async () => {
    const res = await submit(root, `books/records/${book}/edit`, { title: 'Forbidden', 'genres.0': ids.essay });
    expect(res.body.record.errors.title.message).toBe('resources:book.errors.forbidden_title');
    expect((await t.services.registry.get('Book').model.findByPk(Number(book)))?.get('title')).not.toBe('Forbidden');
    expect(await links(book)).toEqual([]);
  });

  test("a bulk delete is all or nothing: a hook's refusal of one row keeps every row, logs nothing and says why", async () => {
    const ids: string[] = [];
    for (const title of ['Doomed first', 'Undeletable', 'Doomed last']) ids.push(String((await create({ title })).body.record.id));
    const entries = await auditModel(t.services.sequelize).count();
    const res = await root.post(`/admin/api/resources/books/bulk/bulkDelete?recordIds=${ids.join(',')}`).set('Accept-Language', 'en');
    expect(res.body.notice).toEqual({ message: 'resources:book.errors.undeletable', type: 'error' });
    expect(await t.services.registry.get('Book').model.count({ where: { id: ids.map(Number) } })).toBe(3);
    expect(await auditModel(t.services.sequelize).count()).toBe(entries);
  });

  test('lists show computed counts and filter by enum, number and date; JSON, genres and counts are no filters', async () => {
    await create({ title: 'Dispossessed', format: 'hardcover', pages: '387', price: '20', published_on: '1974-05-01', 'genres.0': ids.scifi, author_id: ids.author }).expect(200);
    await create({ title: 'Essays', format: 'ebook', pages: '120', price: '5.25', published_on: '1989-01-01', 'genres.0': ids.essay, 'genres.1': ids.fantasy }).expect(200);
    const titles = async (query: string): Promise<string[]> => {
      const res = await root.get(`/admin/api/resources/books/actions/list?perPage=100&${query}`);
      expect([query, res.status]).toEqual([query, 200]);
      return (res.body.records as RecordJson[]).map((record) => String(record.params.title)).sort();
    };
    const all = await root.get('/admin/api/resources/books/actions/list?perPage=100');
    const counts = Object.fromEntries((all.body.records as RecordJson[]).map((record) => [record.params.title, record.params.genre_count]));
    expect(counts).toMatchObject({ Dispossessed: 1, Essays: 2 });
    expect(await titles('filters.format=hardcover')).toEqual(['Dispossessed']);
    expect(await titles('filters.format=novel')).toEqual([]);
    expect(await titles('filters.pages=120')).toEqual(['Essays']);
    expect(await titles('filters.pages~~from=300')).toEqual(['Dispossessed']);
    expect(await titles('filters.price~~from=5&filters.price~~to=6')).toEqual(['Essays']);
    expect(await titles('filters.price=5.25')).toEqual(['Essays']);
    expect(await titles('filters.published_on~~from=1970-01-01&filters.published_on~~to=1980-12-31')).toEqual(['Dispossessed']);
    expect(await titles('filters.published_on~~from=1988-12-31T23:00:00.000Z')).toEqual(['Essays']);
    expect(await titles('filters.pages=abc')).toEqual([]);
    const everything = await titles('');
    for (const query of ['filters.details=x', 'filters.genres=1', 'filters.genre_count=1', 'filters.shout=X', 'sortBy=genre_count', 'sortBy=details', 'sortBy=price&direction=desc']) {
      expect(await titles(query)).toEqual(everything);
    }
    const authors = await root.get('/admin/api/resources/authors/actions/list');
    expect(authors.body.records[0].params.book_count).toBe(1);
    const search = await root.get('/admin/api/resources/genres/actions/search/fan');
    expect(search.body.records.map((record: { title: string }) => record.title)).toEqual(['Fantasy']);
  });

  test('a list page reads its genres, counts and authors in one query each, however many rows it shows', async () => {
    // Sequelize's types leave `options` out; each query reads `logging` from it.
    const sequelize = t.services.registry.sequelize as unknown as { options: { logging: unknown } };
    const queriesFor = async (perPage: number): Promise<number> => {
      let count = 0;
      const logging = sequelize.options.logging;
      sequelize.options.logging = () => {
        count += 1;
      };
      try {
        await root.get(`/admin/api/resources/books/actions/list?perPage=${perPage}`).expect(200);
      } finally {
        sequelize.options.logging = logging;
      }
      return count;
    };
    // The newest first: the one-row page shows a book with an author and genres, as the whole list does.
    for (const title of ['Volume 1', 'Volume 2', 'Volume 3']) {
      await create({ title, author_id: ids.author, 'genres.0': ids.fantasy, 'genres.1': ids.essay }).expect(200);
    }
    expect(await queriesFor(100)).toBe(await queriesFor(1));
  });

  test('deleting a book removes its links with it', async () => {
    const res = await create({ title: 'Doomed', 'genres.0': ids.essay });
    const doomed = String(res.body.record.params.id);
    expect(await links(doomed)).toEqual([Number(ids.essay)]);
    const deleted = await root.post(`/admin/api/resources/books/records/${doomed}/delete`);
    expect(deleted.body.notice.type).toBe('success');
    expect(await t.services.registry.get('Book').model.findByPk(Number(doomed))).toBeNull();
    expect(await links(doomed)).toEqual([]);
  });
});
