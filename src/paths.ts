import { existsSync, readFileSync } from 'node:fs';
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

/** The framework's own messages: every application reads them first, its own `locales/` over them. */
export const frameworkLocalesDir = path.join(projectRoot, 'src', 'locales');
const manifest = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { name: string; version: string };
/** The framework's package name (package.json), by which applications import its public entries. */
export const packageName = manifest.name;
/** The framework's version, which a new project depends on and the API description states. */
export const frameworkVersion = manifest.version;
/** What a migration file imports the framework's schema operations from. */
export const MIGRATIONS_ENTRY = `${packageName}/migrations`;
export const templatesDir = path.join(projectRoot, 'src', 'templates');
export const staticDir = path.join(projectRoot, 'src', 'static');

/**
 * Where an application served by the framework keeps its own files: its
 * declarations and their migrations, its seeders and their data, and its
 * messages (which add to and override the framework's).
 */
export interface ApplicationPaths {
  root: string;
  resources: string;
  migrations: string;
  /** The migrations' sources, where `makemigrations` writes (`migrations` may be their compiled copies). */
  migrationSources: string;
  seeders: string;
  seedData: string;
  locales: string;
}

/** Whether `file` is `dir` or inside it. */
function isWithin(dir: string, file: string): boolean {
  const relative = path.relative(dir, file);
  return !relative.startsWith('..') && !path.isAbsolute(relative);
}

/**
 * The application whose root is `root`: absolute, or relative to the working
 * directory (`.`, the default, is the folder `npm start` or `npx declarest`
 * runs in; in this checkout the comment service, `examples/blog` the blog).
 * This repository's applications run compiled, from dist/ beside this file
 * (or their sources under Jest); any other folder is an application of its
 * own, whose TypeScript sources are loaded as they are (application-code.ts).
 * Data files and messages are always read from the application's folder.
 */
export function applicationAt(root: string, base = process.cwd()): ApplicationPaths {
  const source = path.resolve(base, root);
  const ours = isWithin(projectRoot, source) && !isWithin(path.join(projectRoot, 'node_modules'), source);
  const code = ours ? path.join(codeRoot, path.relative(projectRoot, source)) : source;
  return {
    root: source,
    resources: path.join(code, 'resources'),
    migrations: path.join(code, 'resources', 'migrations'),
    migrationSources: path.join(source, 'resources', 'migrations'),
    seeders: path.join(code, 'seeders'),
    seedData: path.join(source, 'seeders', 'data'),
    locales: path.join(source, 'locales'),
  };
}

const mainApplication = applicationAt('.');
export const resourcesDir = mainApplication.resources;
export const migrationsDir = mainApplication.migrations;
