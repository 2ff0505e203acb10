import { readFileSync } from 'node:fs';
import { clock, defineSeeder } from 'declarest';

interface DemoReply {
  author: string;
  body: string;
  /** The index, in the same post's replies, of the reply this one answers. */
  parent?: number;
}

interface DemoPost {
  author: string;
  title: string;
  body: string;
  status: 'draft' | 'published';
  reading_minutes?: number;
  price?: string;
  metadata?: unknown;
  publish_on?: string;
  tags: string[];
  replies: DemoReply[];
}

const HOUR = 3_600_000;

/** Tags, posts by the demo accounts (two published, one draft) filed under them, and threads of replies. */
export default defineSeeder({
  development: true,
  async run({ services, transaction, dataFile }) {
    const data = JSON.parse(readFileSync(dataFile('demo_posts.json'), 'utf8')) as { tags: string[]; posts: DemoPost[] };
    const { registry } = services;
    const users = await registry.users().model.findAll({ attributes: ['id', 'username'], transaction });
    const userId = new Map(users.map((user) => [user.get('username') as string, user.get('id') as number]));
    const idOf = (username: string): number => {
      const id = userId.get(username);
      if (id === undefined) throw new Error(`demo_posts.json names unknown user ${username}`);
      return id;
    };
    const tags = await registry.get('Tag').model.bulkCreate(data.tags.map((name) => ({ name })), { transaction, hooks: false });
    const tagId = new Map(tags.map((tag) => [tag.get('name') as string, tag.get('id') as number]));
    const now = clock().now().getTime();
    for (const [index, post] of data.posts.entries()) {
      const at = new Date(now - (data.posts.length - index) * HOUR);
      const row = await registry.get('Post').model.create(
        {
          title: post.title,
          body: post.body,
          status: post.status,
          published_at: post.status === 'published' ? at : null,
          reading_minutes: post.reading_minutes ?? null,
          price: post.price ?? null,
          metadata: post.metadata ?? null,
          publish_on: post.publish_on ?? null,
          author_id: idOf(post.author),
          created_at: at,
          updated_at: at,
        },
        { transaction, hooks: false },
      );
      const postId = row.get('id') as number;
      if (post.tags.length > 0) {
        await services.sequelize.getQueryInterface().bulkInsert(
          'post_tags',
          post.tags.map((name) => ({ post_id: postId, tag_id: tagId.get(name) })),
          { transaction },
        );
      }
      const replyIds: number[] = [];
      for (const reply of post.replies) {
        const parentId = reply.parent === undefined ? null : replyIds[reply.parent];
        const made = await registry.get('Reply').model.create(
          { post_id: postId, parent_id: parentId ?? null, body: reply.body, author_id: idOf(reply.author) },
          { transaction, hooks: false },
        );
        replyIds.push(made.get('id') as number);
      }
    }
  },
});
