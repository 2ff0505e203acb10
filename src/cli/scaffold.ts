/**
 * `startproject NAME [DIR]` and `startresource NAME`, as Django's
 * `startproject` and `startapp`: a new application's folder from the
 * package's template (templates/project), and a new declaration in one.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Translate } from '../i18n.js';
import { frameworkVersion, packageName, projectRoot } from '../paths.js';
import { CommandFailed } from './accounts.js';
import type { CliIO } from './io.js';

export const PROJECT_TEMPLATE = path.join(projectRoot, 'templates', 'project');
/** npm leaves a package's .gitignore out of its tarball, so the template keeps it under another name. */
const RENAMED = { gitignore: '.gitignore' } as const;
/** A project's name: it becomes an npm package name and a title. */
const PROJECT_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,213}$/;
/** A resource's name, as a model's: `Note`, `BlogPost`. */
const RESOURCE_NAME = /^[A-Z][A-Za-z0-9]{0,63}$/;

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(dir, prefix)).flatMap((name) => {
    const relative = path.join(prefix, name);
    return statSync(path.join(dir, relative)).isDirectory() ? filesUnder(dir, relative) : [relative];
  });
}

/** Writes the project `name` into `dir` (default: ./name), which must not exist or be empty; answers its folder. */
export function startProject(io: CliIO, t: Translate, name: string, dir?: string): string {
  if (!PROJECT_NAME.test(name)) throw new CommandFailed([t('scaffold.bad_project_name', { name })]);
  const target = path.resolve(process.cwd(), dir ?? name);
  if (existsSync(target) && readdirSync(target).length > 0) throw new CommandFailed([t('scaffold.not_empty', { dir: target })]);
  mkdirSync(target, { recursive: true });
  cpSync(PROJECT_TEMPLATE, target, { recursive: true });
  for (const [kept, real] of Object.entries(RENAMED)) {
    if (existsSync(path.join(target, kept))) renameSync(path.join(target, kept), path.join(target, real));
  }
  const words: Record<string, string> = { __PACKAGE__: name.toLowerCase(), __TITLE__: name, __DECLAREST__: `^${frameworkVersion}` };
  for (const file of filesUnder(target).filter((file) => /\.(json|md|ts)$/.test(file))) {
    const full = path.join(target, file);
    const text = readFileSync(full, 'utf8');
    const replaced = text.replace(/__(PACKAGE|TITLE|DECLAREST)__/g, (word) => words[word] ?? word);
    if (replaced !== text) writeFileSync(full, replaced);
  }
  const shown = path.relative(process.cwd(), target) || '.';
  io.stdout.write(`${t('scaffold.project_written', { name, dir: shown, framework: packageName })}\n`);
  return target;
}

/** `BlogPost` → `blog_post`: the file, table and label key of a resource. */
function snakeCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

function declarationSource(name: string): string {
  const snake = snakeCase(name);
  const plural = snake.endsWith('s') ? snake : `${snake}s`;
  return `import { defineResource, field, isAuthenticated, isOwnerOrStaff } from '${packageName}';

export default defineResource({
  name: '${name}',
  table: '${plural}',
  fields: {
    id: field.id(),
    name: field.string({ maxLength: 200 }),
    owner_id: field.reference('User', { as: 'owner', related: '${plural}', readOnly: true, onDelete: 'CASCADE' }),
    created_at: field.createdAt(),
    updated_at: field.updatedAt(),
  },
  ownerField: 'owner_id',
  displayField: 'name',
  permissions: [isAuthenticated, isOwnerOrStaff],
  sites: {
    paginated: { path: '${plural.replace(/_/g, '-')}', actions: ['list', 'retrieve', 'create', 'update', 'partial_update', 'destroy'], fields: ['id', 'name', 'updated_at'] },
    token: {
      path: '${plural.replace(/_/g, '-')}',
      actions: ['list', 'retrieve', 'create', 'update', 'partial_update', 'destroy'],
      fields: ['id', 'name', 'updated_at'],
      wrap: { item: '${snake}', list: '${plural}' },
    },
  },
});
`;
}

/** Adds the resource's labels to each `locales/<language>/resources.json` the application has, keeping the others. */
function addLabels(root: string, name: string): void {
  const localesDir = path.join(root, 'locales');
  if (!existsSync(localesDir)) return;
  const humanized = snakeCase(name).replace(/_/g, ' ');
  const label = humanized.charAt(0).toUpperCase() + humanized.slice(1);
  for (const language of readdirSync(localesDir)) {
    const file = path.join(localesDir, language, 'resources.json');
    if (!existsSync(file)) continue;
    const labels = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    labels[name.toLowerCase()] ??= { name: label, plural: `${label}s`, fields: { id: 'ID', name: 'Name', owner_id: 'Owner', created_at: 'Created at', updated_at: 'Updated at' } };
    writeFileSync(file, `${JSON.stringify(labels, null, 2)}\n`);
  }
}

/** Writes `resources/<name>.ts` in the application at `root`, and its labels; its migration is `makemigrations`' to write. */
export function startResource(io: CliIO, t: Translate, root: string, name: string): string {
  if (!RESOURCE_NAME.test(name)) throw new CommandFailed([t('scaffold.bad_resource_name', { name })]);
  const file = path.join(root, 'resources', `${snakeCase(name)}.ts`);
  if (existsSync(file)) throw new CommandFailed([t('scaffold.exists', { file: path.relative(process.cwd(), file) })]);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, declarationSource(name));
  addLabels(root, name);
  io.stdout.write(`${t('scaffold.resource_written', { file: path.relative(process.cwd(), file), framework: packageName })}\n`);
  return file;
}
