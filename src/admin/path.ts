/**
 * Where the admin site lives. A leaf: the lazy mount (mount.ts) loads the
 * admin (index.ts), and the admin's pages link under this path.
 */
export const ADMIN_PATH = '/admin';
