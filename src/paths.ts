import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The checkout's root, found from this file so that the same code works when run
 * from `src/` (tests) and from the compiled `dist/src/` (npm start).
 */
function findProjectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

export const projectRoot = findProjectRoot();

/** Compiled code lives in dist/, next to which its own copies of resources/ etc. are emitted. */
export const codeRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const localesDir = path.join(projectRoot, 'locales');
export const templatesDir = path.join(projectRoot, 'src', 'templates');
export const staticDir = path.join(projectRoot, 'src', 'static');
export const resourcesDir = path.join(codeRoot, 'resources');
export const migrationsDir = path.join(resourcesDir, 'migrations');
/** Seeders run as code (compiled under dist/); the data files they load stay in the checkout. */
export const seedersDir = path.join(codeRoot, 'seeders');
export const seedDataDir = path.join(projectRoot, 'seeders', 'data');
