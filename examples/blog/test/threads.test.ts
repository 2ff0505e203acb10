/** A reply's thread stays a tree inside its post (the reply's `validate`), from both API sites and the admin. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type request from 'supertest';
import type { TestClient } from 'declarest/testing';
import { adminAgent, adminForm, author, blogClient, type Author } from './support.js';

let client: TestClient;
let alice: Author;
let bob: Author;
let admin: request.Agent;

beforeAll(async () => {
  client = await blogClient();
  alice = await author(client, 'alice');
  bob = await author(client, 'bob');
  await client.createUser('root', { staff: true, superuser: true });
  admin = await adminAgent(client, 'root');
}, 60_000);

afterAll(async () => {
  // Every answer the tests got is one the blog's own /openapi.json documents.
  const undocumented = await client.undocumentedAnswers();
  await client.close();
  expect(undocumented).toEqual([]);
});

const OTHER_POST = 'The reply answered must belong to the same post.';
const OWN_PARENT = 'A reply cannot answer itself.';
const OWN_ANSWER = 'A reply cannot answer a reply made to it, directly or further down its thread.';
const ANSWERED = 'A reply that has been answered cannot move to another post.';

const replies = () => client.services.registry.get('Reply').model;

async function post(title: string): Promise<number> {
  return (await alice.root.post('/posts/').send({ title, body: 'A body.' }).expect(201)).body.id as number;
}

async function reply(postId: number, parentId: number | null = null): Promise<number> {
  return (await bob.root.post('/replies/').send({ post_id: postId, parent_id: parentId, body: 'A reply.' }).expect(201)).body.id as number;
}

/** A thread of three: top ← middle ← bottom, each answering the one before. */
async function thread(postId: number): Promise<[number, number, number]> {
  const top = await reply(postId);
  const middle = await reply(postId, top);
  return [top, middle, await reply(postId, middle)];
}

async function parentOf(id: number): Promise<unknown> {
  return (await replies().findByPk(id))?.get('parent_id');
}

describe("a reply's parent", () => {
  it('in another post is refused on create, in each site’s shape and language, and nothing is written', async () => {
    const [first, second] = [await post('First'), await post('Second')];
    const elsewhere = await reply(first);
    const before = await replies().count();
    const root = await bob.root.post('/replies/').send({ post_id: second, parent_id: elsewhere, body: 'Lost' }).expect(400);
    expect(root.body).toEqual({ parent_id: [OTHER_POST] });
    const ja = await client.actingAs(bob.user).post('/replies/').set('Accept-Language', 'ja').send({ post_id: second, parent_id: elsewhere, body: 'Lost' }).expect(400);
    expect(ja.body).toEqual({ parent_id: ['返信先は同じ記事の返信にしてください。'] });
    const api = await bob.api.post('/api/replies').send({ post_id: second, parent_id: elsewhere, body: 'Lost' }).expect(422);
    expect(api.body).toEqual({ message: OTHER_POST, errors: { parent_id: [OTHER_POST] } });
    expect(await replies().count()).toBe(before);
  });

  it('in another post is refused on update, whichever of the two fields the update names', async () => {
    const [first, second] = [await post('First'), await post('Second')];
    const there = await reply(second);
    const answering = await reply(first, await reply(first));
    const parent = await bob.root.patch(`/replies/${answering}/`).send({ parent_id: there }).expect(400);
    expect(parent.body).toEqual({ parent_id: [OTHER_POST] });
    // Only the post named: the parent it keeps is then in another post.
    const moved = await bob.api.patch(`/api/replies/${answering}`).send({ post_id: second }).expect(422);
    expect(moved.body.errors).toEqual({ parent_id: [OTHER_POST] });
    expect((await replies().findByPk(answering))?.get('post_id')).toBe(first);
  });

  it('may not be the reply itself', async () => {
    const id = await reply(await post('Self'));
    expect((await bob.root.patch(`/replies/${id}/`).send({ parent_id: id }).expect(400)).body).toEqual({ parent_id: [OWN_PARENT] });
    expect((await bob.api.put(`/api/replies/${id}`).send({ post_id: (await replies().findByPk(id))?.get('post_id'), parent_id: id, body: 'Me' }).expect(422)).body.errors).toEqual({ parent_id: [OWN_PARENT] });
    expect(await parentOf(id)).toBeNull();
  });

  it('may not be one of its answers, however far down the thread: no loop is ever made', async () => {
    const [top, middle, bottom] = await thread(await post('Loop'));
    expect((await bob.root.patch(`/replies/${top}/`).send({ parent_id: middle }).expect(400)).body).toEqual({ parent_id: [OWN_ANSWER] });
    expect((await bob.api.patch(`/api/replies/${top}`).send({ parent_id: bottom }).expect(422)).body.errors).toEqual({ parent_id: [OWN_ANSWER] });
    expect([await parentOf(top), await parentOf(middle), await parentOf(bottom)]).toEqual([null, top, middle]);
  });

  it('may move within the post: to a sibling, up the thread, or to none', async () => {
    const postId = await post('Moves');
    const [top, middle, bottom] = await thread(postId);
    const sibling = await reply(postId, top);
    await bob.root.patch(`/replies/${bottom}/`).send({ parent_id: sibling }).expect(200);
    await bob.root.patch(`/replies/${middle}/`).send({ parent_id: bottom }).expect(200);
    await bob.api.patch(`/api/replies/${middle}`).send({ parent_id: null }).expect(200);
    // Another field alone: the thread as stored is checked again, and passes.
    await bob.root.patch(`/replies/${bottom}/`).send({ body: 'Edited.' }).expect(200);
    expect([await parentOf(bottom), await parentOf(middle)]).toEqual([sibling, null]);
  });
});

describe('a reply moved to another post', () => {
  it('goes when no reply answers it, and is refused when one does: its answers would stay behind', async () => {
    const [first, second] = [await post('From'), await post('To')];
    const alone = await reply(first);
    await bob.root.patch(`/replies/${alone}/`).send({ post_id: second }).expect(200);
    const [top] = await thread(first);
    const refused = await bob.root.patch(`/replies/${top}/`).send({ post_id: second }).expect(400);
    expect(refused.body).toEqual({ post_id: [ANSWERED] });
    expect((await replies().findByPk(top))?.get('post_id')).toBe(first);
  });
});

describe('in the admin', () => {
  it('a reply made with a parent of another post, or edited to answer its own answer, gets the field error and is not written', async () => {
    const [first, second] = [await post('Admin one'), await post('Admin two')];
    const [top, middle] = await thread(first);
    const before = await replies().count();
    const made = await adminForm(admin, 'replies/actions/new', { post_id: String(second), parent_id: String(top), body: 'From the admin' });
    expect(made.body.notice.type).toBe('error');
    expect(made.body.record.errors.parent_id.message).toBe(OTHER_POST);
    expect(await replies().count()).toBe(before);
    const edited = await adminForm(admin, `replies/records/${top}/edit`, { parent_id: String(middle) });
    expect(edited.body.notice.type).toBe('error');
    expect(edited.body.record.errors.parent_id.message).toBe(OWN_ANSWER);
    expect(await parentOf(top)).toBeNull();
  });
});
