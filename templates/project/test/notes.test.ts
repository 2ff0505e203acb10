import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestClient, type TestClient } from 'declarest/testing';

// The application of this folder, on a throwaway in-memory database, migrated.
let client: TestClient;
before(async () => {
  client = await createTestClient();
});
after(async () => {
  await client.close();
});

test('a signed-in user creates a note and finds it in both APIs', async () => {
  const alice = await client.createUser('alice');
  const created = await client.actingAs(alice).post('/notes/').send({ title: 'Hello', body: 'First note.' }).expect(201);
  assert.equal(created.body.title, 'Hello');

  const page = await client.actingAs(alice).get('/notes/').expect(200);
  assert.equal(page.body.count, 1);

  const token = await client.tokenFor(alice);
  const api = await client.withToken(token).get(`/api/notes/${created.body.id}`).expect(200);
  assert.equal(api.body.note.title, 'Hello');
});

test('nobody signed in may read the notes', async () => {
  await client.anonymous.get('/notes/').expect(401);
});
