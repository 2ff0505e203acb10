/**
 * Importing an application's own modules (its declarations, migrations and
 * seeders). This repository's applications run compiled, from dist/; an
 * application of its own folder runs from its TypeScript sources, loaded
 * through tsx (registered on first need), so that a changed declaration is
 * picked up without a build step, as Django reads a changed models.py.
 */
import { pathToFileURL } from 'node:url';

let typescriptLoader: Promise<unknown> | undefined;

/**
 * Jest compiles TypeScript itself, and gives the modules it runs an
 * `import.meta.jest`; a second loader would compile it twice, or not at all.
 * (Not its worker's environment: a process a test starts inherits that.)
 */
const compiledByTestRunner = (): boolean => (import.meta as ImportMeta & { jest?: unknown }).jest !== undefined;

/** The module at `file`, a source or compiled file of the application. */
export async function importApplicationModule(file: string): Promise<unknown> {
  if (/\.[cm]?tsx?$/.test(file) && !compiledByTestRunner()) {
    typescriptLoader ??= import('tsx/esm/api').then(({ register }) => register());
    await typescriptLoader;
  }
  return import(pathToFileURL(file).href);
}
