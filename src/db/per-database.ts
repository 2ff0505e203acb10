import type { Sequelize } from 'sequelize';

/**
 * One `T` per database connection, made on first use: what a module learns of
 * a database (which indexes or counters its migrations made) stays with it,
 * and a test's throwaway database takes it away with it.
 */
export function perDatabase<T extends object>(make: (sequelize: Sequelize) => T): (sequelize: Sequelize) => T {
  const made = new WeakMap<Sequelize, T>();
  return (sequelize) => {
    let found = made.get(sequelize);
    if (!found) {
      found = make(sequelize);
      made.set(sequelize, found);
    }
    return found;
  };
}
