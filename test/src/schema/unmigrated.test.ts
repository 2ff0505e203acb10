import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { applicationAt, type ApplicationPaths } from '../../../src/paths.js';
import { loadDeclarations } from '../../../src/registry.js';
import { field } from '../../../src/resource.js';
import { unmigrated } from '../../../src/schema/unmigrated.js';
import type { ResourceDeclaration } from '../../../src/types/resource.js';

const project = await loadDeclarations();
const main = applicationAt('.');

describe('what a server tells at start of migrations not made or not compiled', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-unmigrated-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The project's migrations' snapshot, with `sources` and compiled copies of the migrations named. */
  function application(sources: string[], compiled: string[]): ApplicationPaths {
    const at = mkdtempSync(path.join(dir, 'app-'));
    const paths = { ...main, migrationSources: path.join(at, 'sources'), migrations: path.join(at, 'compiled') };
    mkdirSync(paths.migrationSources);
    mkdirSync(paths.migrations);
    copyFileSync(path.join(main.migrationSources, 'schema.json'), path.join(paths.migrationSources, 'schema.json'));
    for (const name of sources) writeFileSync(path.join(paths.migrationSources, `${name}.ts`), '');
    for (const name of compiled) writeFileSync(path.join(paths.migrations, `${name}.js`), '');
    return paths;
  }

  test('nothing, for the project as it is: its migrations make what its declarations need', () => {
    expect(unmigrated(main, project)).toEqual({ changes: [], uncompiled: [] });
  });

  test('a field declared with no migration made for it, as makemigrations --check lists it', () => {
    const changed: ResourceDeclaration[] = project.map((declaration) =>
      declaration.name === 'Comment' ? { ...declaration, fields: { ...declaration.fields, note: field.string({ maxLength: 20, nullable: true }) } } : declaration,
    );
    expect(unmigrated(application([], []), changed).changes).toEqual(['+ comments.note (string(20), null)']);
  });

  test('for an application with no migration yet, every table its declarations need', () => {
    const paths = application([], []);
    rmSync(path.join(paths.migrationSources, 'schema.json'));
    const { changes } = unmigrated(paths, project);
    expect(changes).toContain(`+ table comments (${Object.keys(project.find((declaration) => declaration.name === 'Comment')?.fields ?? {}).join(', ')})`);
  });

  test('a migration written but not compiled, which the server cannot run', () => {
    const paths = application(['0001_initial', '0002_more'], ['0001_initial']);
    expect(unmigrated(paths, project).uncompiled).toEqual(['0002_more']);
  });
});
