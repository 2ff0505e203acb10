import { describe, expect, test } from '@jest/globals';
import { createApp } from '../../src/app.js';
import { loadDeclarations } from '../../src/registry.js';
import { defineResource, field } from '../../src/resource.js';
import { createServices } from '../../src/services.js';
import { testConfig } from '../helpers/app.js';

/** A resource the root site would serve under `path`. */
function rootResource(path: string) {
  return defineResource({
    name: 'Page',
    table: 'pages',
    fields: { id: field.id(), title: field.string({ maxLength: 20 }) },
    sites: { paginated: { path, actions: ['list', 'retrieve'], fields: ['id', 'title'] } },
  });
}

describe('the app', () => {
  test.each(['docs', 'openapi.json', 'api', 'admin', 'healthz', 'static'])(
    'refuses to start with a root resource at /%s, which it serves first and would hide',
    async (path) => {
      const services = await createServices(testConfig(), { declarations: [...(await loadDeclarations()), rootResource(path)], migrate: false });
      try {
        expect(() => createApp(services)).toThrow(`the root site's /${path} is hidden by /${path}`);
      } finally {
        await services.close();
      }
    },
  );

  test('starts with a root resource under a path nothing else takes', async () => {
    const services = await createServices(testConfig(), { declarations: [...(await loadDeclarations()), rootResource('pages')], migrate: false });
    try {
      expect(() => createApp(services)).not.toThrow();
    } finally {
      await services.close();
    }
  });
});
