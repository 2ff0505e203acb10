/**
 * The framework as a package: what it ships, what an application may import
 * (package.json `exports`), and the record of that surface (public-api.md).
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { packageName, projectRoot } from '../../src/paths.js';

const run = promisify(execFile);
const manifest = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
const entries = Object.keys(manifest.exports).filter((subpath) => subpath !== './package.json').map((subpath) => (subpath === '.' ? packageName : `${packageName}/${subpath.slice(2)}`));

/** The TypeScript files of this repository's applications: the comment service's folders, each example and the new project's template, whole. */
function applicationFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && !['node_modules', 'data'].includes(entry.name)) walk(full);
      else if (entry.isFile() && /\.tsx?$/.test(entry.name)) found.push(full);
    }
  };
  for (const dir of ['resources', 'seeders', 'examples', 'templates']) walk(path.join(projectRoot, dir));
  return found;
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)'([^']+)'/gm;

/** Each import of `file` that reaches past the public entries: a path into src/ or test/, or a deep path of the package. */
function forbiddenImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(SPECIFIER)].flatMap(([, specifier = '']) => {
    const shown = `${path.relative(projectRoot, file)}: ${specifier}`;
    if (specifier.startsWith('.')) {
      const target = path.relative(projectRoot, path.resolve(path.dirname(file), specifier));
      return /^(src|test)(\/|$)/.test(target) ? [shown] : [];
    }
    if (specifier === packageName || specifier.startsWith(`${packageName}/`)) return entries.includes(specifier) ? [] : [shown];
    return [];
  });
}

describe('the applications of this repository', () => {
  it('import the framework by its package name and public entries only, never a path into its sources', () => {
    const files = applicationFiles();
    expect(files.length).toBeGreaterThan(30);
    expect(files.flatMap(forbiddenImports)).toEqual([]);
  });
});

describe('the package', () => {
  it('lets Node load its public entries by name and refuses a deep path into it', async () => {
    const script = `
      const { defineResource } = await import('${packageName}');
      const { schemaEditor } = await import('${packageName}/migrations');
      let deep = 'loaded';
      try { await import('${packageName}/dist/src/resource.js'); } catch (error) { deep = error.code; }
      console.log(JSON.stringify([typeof defineResource, typeof schemaEditor, deep]));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: projectRoot });
    expect(JSON.parse(stdout)).toEqual(['function', 'function', 'ERR_PACKAGE_PATH_NOT_EXPORTED']);
  });

  it('depends at run time on every package its code imports, none of them a devDependency an install leaves out', () => {
    const { dependencies = {}, peerDependencies = {} } = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    const sources: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (/\.tsx?$/.test(entry.name)) sources.push(full);
      }
    };
    walk(path.join(projectRoot, 'src'));
    const imported = new Set<string>();
    for (const file of sources) {
      // Type-only imports leave no trace in the compiled code.
      const code = readFileSync(file, 'utf8').replace(/^import type [^;]+;$/gm, '');
      for (const [, specifier = ''] of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)'([^'.][^']*)'/g)) {
        // A package name (npm's rules), not a string that happens to follow `from` in a template or a message.
        if (!/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/[\w./-]+)?$/.test(specifier)) continue;
        if (specifier.startsWith('node:') || specifier === packageName || specifier.startsWith(`${packageName}/`)) continue;
        const parts = specifier.split('/');
        imported.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier));
      }
    }
    expect(imported.size).toBeGreaterThan(20);
    expect([...imported].filter((name) => !(name in dependencies) && !(name in peerDependencies)).sort()).toEqual([]);
  });

  it('exports exactly the surface public-api.md records', async () => {
    const { stdout } = await run(process.execPath, [path.join(projectRoot, 'scripts', 'public-api.mjs'), '--check'], { cwd: projectRoot });
    expect(stdout).toContain('The public API is as public-api.md records it.');
  }, 60000);

  it('packs the framework compiled, with its types, messages, templates and admin components, and none of the applications (nor the comment service’s messages), tests or benchmarks', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: projectRoot });
    const files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0]?.files.map((file) => file.path) ?? [];
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/src/index.js',
        'dist/src/index.d.ts',
        'dist/src/migrations.d.ts',
        'dist/src/testing/index.d.ts',
        'dist/adminjs/bundle.js',
        'src/templates/layout.eta',
        'src/static/browsable.css',
        'src/admin/ui/dashboard.jsx',
        'src/locales/ja/common.json',
        'scripts/manage.mjs',
        'templates/project/resources/note.ts',
        'templates/project/gitignore',
        'CHANGELOG.md',
      ]),
    );
    expect(files.filter((file) => /^(dist\/)?(resources|seeders|locales|examples|test|bench)\//.test(file) || file.endsWith('.map') || /^src\/.*\.ts$/.test(file))).toEqual([]);
  }, 60000);
});
