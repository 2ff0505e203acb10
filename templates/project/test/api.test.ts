import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestClient, type TestClient } from 'declarest/testing';
// Written by `npm run client` (npm test runs it first) from the application's OpenAPI description.
import { createApiClient } from '../client/api.js';

// The application served on a port of this machine, for a client that speaks HTTP.
let client: TestClient;
let baseUrl = '';
before(async () => {
  client = await createTestClient();
  baseUrl = await client.serve();
});
after(async () => {
  await client.close();
});

test('the typed API client creates a note and reads it back', async () => {
  const alice = await client.createUser('alice');
  const api = createApiClient({ baseUrl, headers: { Authorization: `Bearer ${await client.tokenFor(alice)}`, Accept: 'application/json' } });
  const created = await api.POST('/api/notes', { body: { title: 'Typed', body: 'Sent by the typed client.' } });
  assert.equal(created.response.status, 201);
  const id = created.data?.note.id;
  assert.ok(id !== undefined);
  const read = await api.GET('/api/notes/{pk}', { params: { path: { pk: id } } });
  assert.equal(read.data?.note.title, 'Typed');
});
