import type { TestApp } from './app.js';

export interface SeededComment {
  title: string;
  body: string;
  owner: string | null;
}

/** The six comments the Django REST Framework reference answered list queries over (alice four, bob two), oldest first. */
export const DRF_COMMENTS: readonly SeededComment[] = [
  { title: 'Spring', body: 'cherry trees', owner: 'alice' },
  { title: 'spring tea', body: 'green', owner: 'alice' },
  { title: 'Autumn', body: 'red leaves', owner: 'alice' },
  { title: '桜の季節', body: '春が来た', owner: 'alice' },
  { title: 'winter', body: 'snow and tea', owner: 'bob' },
  { title: 'summer', body: 'sea', owner: 'bob' },
];

/** The nine comments the Laravel + spatie reference answered over (Alice six, Bob three). */
export const LARAVEL_COMMENTS: readonly SeededComment[] = [
  { title: 'Spring', body: 'cherry trees', owner: 'alice' },
  { title: 'spring tea', body: 'green', owner: 'alice' },
  { title: 'Autumn', body: 'red leaves', owner: 'alice' },
  { title: '桜の季節', body: '春が来た', owner: 'alice' },
  { title: '50% sale', body: 'shop', owner: 'alice' },
  { title: 'snake_case', body: 'code', owner: 'alice' },
  { title: 'winter', body: 'snow and tea', owner: 'bob' },
  { title: 'summer', body: 'sea', owner: 'bob' },
  { title: 'rain', body: 'umbrella', owner: 'bob' },
];

/** First comment's time; each next one a second later (the references' own pattern). */
export const SEEDED_AT = Date.UTC(2024, 0, 1, 0, 0, 1);

/**
 * `comments` written straight into the table with times a second apart, in
 * order (ids 1…n on a fresh table); owners by username (null: ownerless).
 * Returns the ids, in the same order.
 */
export async function seedComments(t: Pick<TestApp, 'services'>, comments: readonly SeededComment[]): Promise<number[]> {
  const { registry } = t.services;
  const users = registry.users().model;
  const model = registry.get('Comment').model;
  const ids: number[] = [];
  for (const [index, comment] of comments.entries()) {
    const owner = comment.owner === null ? null : await users.findOne({ where: { username: comment.owner } });
    const at = new Date(SEEDED_AT + index * 1000);
    const row = await model.create(
      { title: comment.title, body: comment.body, user_id: owner?.get('id') ?? null, created_at: at, updated_at: at },
      { silent: true },
    );
    ids.push(row.get('id') as number);
  }
  return ids;
}

/** What follows the host of an absolute link. */
export function local(url: string | null | undefined): string | null {
  return url ? url.replace(/^https?:\/\/[^/]+/, '') : null;
}
