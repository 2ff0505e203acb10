import { defineSeeder } from 'declarest';

/** A few notes by the demo accounts, so that the lists have something to show. */
export default defineSeeder({
  development: true,
  async run({ services, transaction }) {
    const users = await services.registry.users().model.findAll({ attributes: ['id', 'username'], transaction });
    const idOf = new Map(users.map((user) => [user.get('username') as string, user.get('id') as number]));
    await services.registry.get('Note').model.bulkCreate(
      [
        { title: 'Welcome', body: 'This note was made by the demo data.', owner_id: idOf.get('alice') },
        { title: 'Groceries', body: 'Milk, eggs, bread.', owner_id: idOf.get('alice') },
        { title: 'Staff only', body: 'Notes of the admin account.', owner_id: idOf.get('admin') },
      ],
      { transaction },
    );
  },
});
