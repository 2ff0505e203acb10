import { describe, expect, test } from '@jest/globals';
import { DJANGO_USERS, LARAVEL_USERS, useDataWorkspace } from '../../helpers/userdata.js';

const user = (fields: Record<string, unknown>, pk: number | null = 50) => ({ model: 'auth.user', pk, fields });
const json = (value: unknown) => JSON.stringify(value);
const bcrypt = '$2y$10$gsnofKeCe9RuRLr4GpWrrO7Ds.WabGDgJOAGKAQ2EaWVz.LUcd0wu';

/** [case, file name, content, the line the command must print (after the file's path)]. */
const cases: [string, string, string | Buffer, string][] = [
  ['invalid JSON', 'cut.json', '[{"email": "a@example.jp"},', ', record 2: Invalid JSON (expected an array of records): Parser has expected a value'],
  ['a JSON object instead of a list', 'object.json', '{"email": "a@example.jp"}', ', record 1: Invalid JSON (expected an array of records): Top-level object should be an array.'],
  ['invalid CSV', 'quote.csv', 'username,email\na,a@example.jp\n"b,b@example.jp\n', ', record 2: Invalid CSV at line 3: quote not closed.'],
  ['a CSV row with too many cells', 'cells.csv', 'username,email\na,a@example.jp,extra\n', ', record 1: Invalid CSV at line 2: record inconsistent columns.'],
  ['a file that is not UTF-8', 'latin1.csv', Buffer.from('username,email\nj\xf6rg,j@example.jp\n', 'latin1'), ': The file is not valid UTF-8 text.'],
  ['an unknown model', 'group.json', json([{ model: 'auth.group', pk: 1, fields: { name: 'editors' } }]), ', record 1, field "model": Unknown model "auth.group": this application\'s data files hold auth.user, personal_access_tokens.accesstoken, comments.comment, authtoken.token.'],
  ['a record that is not an object', 'number.json', '[42]', ', record 1: Expected an object, but got number.'],
  ['a missing email (and so no username)', 'noemail.json', json([{ name: 'nobody' }]), ', record 1, field "email": This field is required.'],
  ['a missing email in a Django fixture', 'noemail-django.json', json([user({ username: 'solo' })]), ', record 1, field "email": This field is required.'],
  ['an email that cannot be a username, in a record without one', 'quote.json', json([{ email: "o'brien@example.jp" }]), ', record 1, field "email": The record has no username, and this address cannot be one'],
  ['a blank username', 'blank.csv', 'username,email\n  ,x@example.jp\n', ', record 1, field "username": This field may not be blank.'],
  ['a duplicate username inside the file', 'dup.json', json([user({ username: 'a', email: 'a@example.jp' }, 1), user({ username: 'a', email: 'b@example.jp' }, 2)]), ', record 2, field "username": "a" is also in '],
  ['an email taken twice by a record without username, reported once', 'twice.json', json([{ email: 'nakamura@example.jp' }]), ', record 1, field "email": "nakamura@example.jp" is also in'],
  ['a duplicate email inside the file, in another case', 'dupmail.csv', 'email\nSame@Example.jp\nsame@example.jp\n', ', record 2, field "email": "same@example.jp" is also in '],
  ['a duplicate pk inside the file', 'duppk.json', json([user({ username: 'a', email: 'a@example.jp' }, 7), user({ username: 'b', email: 'b@example.jp' }, 7)]), ', record 2, field "pk": "7" is also in '],
  ['a duplicate id inside a list', 'dupid.json', json([{ id: 3, email: 'a@example.jp' }, { id: 3, email: 'b@example.jp' }]), ', record 2, field "id": "3" is also in '],
  ['an email that another user has', 'taken.json', json([{ username: 'other', email: 'YAMADA@example.jp' }]), ', record 1, field "email": "YAMADA@example.jp" already belongs to user "yamada" (id 10).'],
  ['a pk whose username another user has', 'renamed.json', json([user({ username: 'suzuki', email: 'new@example.jp' }, 10)]), ', record 1, field "username": "suzuki" already belongs to user "suzuki" (id 11).'],
  ['a malformed pbkdf2 hash', 'pbkdf2.json', json([user({ username: 'h', email: 'h@example.jp', password: 'pbkdf2_sha256$600000$salt' })]), ', record 1, field "password": This looks like a pbkdf2_sha256 password hash but is malformed'],
  ['a pbkdf2 hash whose digest is cut short', 'short.json', json([{ email: 'h@example.jp', password: 'pbkdf2_sha256$600000$salt$AAAA' }]), ', record 1, field "password": This looks like a pbkdf2_sha256 password hash but is malformed'],
  ['a hash longer than the column', 'longhash.json', json([{ email: 'h@example.jp', password: `pbkdf2_sha256$1000$${'s'.repeat(300)}$${Buffer.alloc(32).toString('base64')}` }]), ', record 1, field "password": This looks like a pbkdf2_sha256 password hash but is malformed'],
  ['an id that belongs to another person', 'other.json', json([{ id: 10, email: 'someone@example.jp' }]), ', record 1, field "id": Id 10 belongs to user "yamada", who has neither this username nor this email'],
  ['two records that would write the same row', 'same-row.json', json([user({ username: 'yamada', email: 'new@example.jp' }, 5), user({ username: 'bob', email: 'yamada@example.jp' }, 10)]), ', record 2, field "pk": The row with id 10 was already written by '],
  ['a malformed bcrypt hash', 'bcrypt.json', json([{ email: 'h@example.jp', password: bcrypt.slice(0, -3) }]), ', record 1, field "password": This looks like a bcrypt password hash but is malformed'],
  ['a bcrypt hash with an absurd cost', 'cost.json', json([{ email: 'h@example.jp', password: bcrypt.replace('$10$', '$31$') }]), ', record 1, field "password": This looks like a bcrypt password hash but is malformed'],
  ['an unknown hash format', 'argon.json', json([{ email: 'h@example.jp', password: 'argon2$argon2id$v=19$m=102400,t=2,p=8$c2FsdA$aGFzaA' }]), ', record 1, field "password": Password hashes of the argon2 kind cannot be verified here.'],
  ['a boolean that is not one', 'bool.csv', 'username,email,is_staff\nh,h@example.jp,maybe\n', ', record 1, field "is_staff": Must be a valid boolean.'],
  ['a username of the wrong type', 'type.json', json([{ username: true, email: 'h@example.jp' }]), ', record 1, field "username": Not a valid string.'],
  ['a password of the wrong type', 'pwtype.json', json([{ email: 'h@example.jp', password: 12345 }]), ', record 1, field "password": Not a valid string.'],
  ['a pk that is not an integer', 'pk.json', json([user({ username: 'h', email: 'h@example.jp' }, 'ten' as unknown as number)]), ', record 1, field "pk": A valid integer is required.'],
  ['an impossible date', 'date.json', json([user({ username: 'h', email: 'h@example.jp', date_joined: '2025-02-30T10:00:00' })]), ', record 1, field "date_joined": Datetime has wrong format.'],
  ['a name that is too long', 'long.csv', `email,name\nh@example.jp,${'長'.repeat(256)}\n`, ', record 1, field "name": name may be at most 255 characters long.'],
  ['a NUL character', 'nul.json', json([{ email: 'h@example.jp', name: 'a\u0000b' }]), ', record 1, field "name": Null characters are not allowed.'],
  ['an unknown file type', 'users.xml', '<users/>', ': Unknown file type ".xml"'],
];

describe('loaddata with bad input: the file, the record and the field, status 1, the database as it was', () => {
  const data = useDataWorkspace();

  test.each(cases)('%s', async (_case, name, content, message) => {
    await data.manage(['loaddata', DJANGO_USERS]);
    const before = await data.users();
    const file = data.file(name, content);
    const run = await data.manage(['loaddata', LARAVEL_USERS, file]);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`${file}${message}`);
    const lines = run.stderr.trim().split('\n');
    expect(lines.at(-1)).toBe('Error: nothing was loaded; the database is as it was.');
    expect(new Set(lines).size).toBe(lines.length);
    expect(await data.users()).toEqual(before);
  });

  test('a file that does not exist is named, and nothing of the other files is loaded', async () => {
    const run = await data.manage(['loaddata', LARAVEL_USERS, '/nonexistent/users.json']);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('/nonexistent/users.json: Cannot read the file: ENOENT');
    expect(await data.users()).toEqual([]);
  });

  test('problem reports never repeat a password or a hash', async () => {
    const file = data.file(
      'secrets.json',
      json([
        { email: 'bad address', password: 'hunter2-plaintext' },
        { email: 'h@example.jp', password: 'pbkdf2_sha256$600000$SECRETSALT' },
        { email: 'i@example.jp', password: 'argon2$argon2id$v=19$m=1,t=1,p=1$SECRETSALT2$SECRETHASH' },
      ]),
    );
    const run = await data.manage(['loaddata', file]);
    expect(run.stderr.trim().split('\n')).toHaveLength(4);
    for (const secret of ['hunter2', 'SECRETSALT', 'SECRETHASH']) expect(run.stderr).not.toContain(secret);
    const csv = await data.manage(['loaddata', data.file('quote.csv', 'username,email,password\nalice,a@example.jp,hunter2"x\n')]);
    expect(csv.stderr).toContain('Invalid CSV at line 2');
    expect(csv.stderr).not.toContain('hunter2');
  });

  test('every problem of a file is listed at once, up to a limit', async () => {
    const file = data.file('many.json', json(Array.from({ length: 80 }, (_, index) => ({ username: `u${index}`, email: 'not an email' }))));
    const run = await data.manage(['loaddata', file]);
    const lines = run.stderr.trim().split('\n');
    expect(lines.filter((line) => line.includes('field "email": Enter a valid email address.'))).toHaveLength(50);
    expect(lines).toContain('Stopped reading after 50 problems; there may be more.');
  });
});
