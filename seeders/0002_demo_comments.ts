import { readFileSync } from 'node:fs';
import { clock, defineSeeder } from 'declarest';

interface DemoComment {
  owner: string;
  title: string;
  body: string;
}

const MINUTE = 60_000;

/** Enough comments by the demo accounts to page through, a minute apart, the last one now. */
export default defineSeeder({
  development: true,
  async run({ services, transaction, dataFile }) {
    const comments = JSON.parse(readFileSync(dataFile('demo_comments.json'), 'utf8')) as DemoComment[];
    const users = await services.registry.users().model.findAll({ attributes: ['id', 'username'], transaction });
    const idOf = new Map(users.map((user) => [user.get('username') as string, user.get('id') as number]));
    const now = clock().now().getTime();
    await services.registry.get('Comment').model.bulkCreate(
      comments.map((comment, index) => {
        const at = new Date(now - (comments.length - 1 - index) * MINUTE);
        return { title: comment.title, body: comment.body, user_id: idOf.get(comment.owner) ?? null, created_at: at, updated_at: at };
      }),
      { transaction, hooks: false },
    );
  },
});
