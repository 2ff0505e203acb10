/** A resource's own policies (src/policies.ts): how its lists meet the site's, and parsers of an application's own. */
import { describe, expect, test } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import type { Site } from '../../src/contracts.js';
import { asApiError } from '../../src/errors.js';
import { DEFAULT_PARSERS, jsonParser, requestData, type Parser } from '../../src/parsers.js';
import { credentialsRefused, parseError, resolvePolicy, resourceSite } from '../../src/policies.js';
import type { Renderer } from '../../src/policy-types.js';
import type { ResourceDeclaration, SiteExposure } from '../../src/types/resource.js';

/** `name=value` lines, one field a line. */
const linesParser: Parser = {
  mediaType: 'text/plain',
  parse(body) {
    const text = body.toString('utf8');
    if (!text.includes('=')) throw parseError('no name=value line');
    return Object.fromEntries(text.split('\n').filter(Boolean).map((line) => line.split('=', 2)));
  },
};

describe('a resource\'s list of a policy', () => {
  test('is added after the site\'s, so that the site\'s first stays the default', () => {
    expect(resolvePolicy(['json', 'html'], ['csv'])).toEqual(['json', 'html', 'csv']);
  });

  test('given as a function of the site\'s, is the whole list: it may replace or reorder the site\'s', () => {
    expect(resolvePolicy(['session', 'basic'], () => ['apiKey'])).toEqual(['apiKey']);
    expect(resolvePolicy(['session', 'basic'], (defaults) => ['apiKey', ...defaults])).toEqual(['apiKey', 'session', 'basic']);
  });

  test('absent, leaves the site\'s as they are', () => {
    const defaults = ['json'];
    expect(resolvePolicy(defaults, undefined)).toBe(defaults);
  });
});

describe('the site a resource is served by', () => {
  const json: Renderer = { mediaType: 'application/json', format: 'json', contentType: 'application/json', render: () => Buffer.from('{}') };
  const csv: Renderer = { mediaType: 'text/csv', format: 'csv', contentType: 'text/csv', render: () => Buffer.from('') };
  const site = { name: 'paginated', authenticators: [], renderers: [json] } as unknown as Site;
  const declaration = { name: 'Post' } as ResourceDeclaration;
  const exposure = { path: 'posts', actions: ['list'], fields: ['id'] } as SiteExposure;
  const users = { findUser: async () => null, findUserById: async () => null };

  test('is the site itself when the resource declares no policy of its own', () => {
    expect(resourceSite(site, declaration, exposure, users)).toBe(site);
  });

  test('has the resource\'s renderers, and everything else of the site', () => {
    const served = resourceSite(site, { ...declaration, renderers: [csv] }, exposure, users);
    expect(served.renderers).toEqual([json, csv]);
    expect(served.name).toBe('paginated');
    expect(served.parsers).toBeUndefined();
  });

  test('takes an exposure\'s list over the resource\'s on that site', () => {
    const served = resourceSite(site, { ...declaration, renderers: [csv] }, { ...exposure, renderers: () => [csv] }, users);
    expect(served.renderers).toEqual([csv]);
  });

  test('refuses a list that leaves no renderer, or two answering the same ?format=', () => {
    expect(() => resourceSite(site, { ...declaration, renderers: () => [] }, exposure, users)).toThrow('renderers leave none');
    expect(() => resourceSite(site, { ...declaration, renderers: [json] }, exposure, users)).toThrow('?format=json');
  });

  test('hands an application\'s authenticator the accounts it names users by', async () => {
    const seen: unknown[] = [];
    const apiKey = {
      described: { name: 'apiKey', scheme: { type: 'apiKey' as const, in: 'header' as const, name: 'X-Api-Key' } },
      authenticate: async (_req: unknown, directory: unknown) => {
        seen.push(directory);
        return null;
      },
    };
    const served = resourceSite(site, { ...declaration, authenticators: [apiKey] }, exposure, users);
    expect(served.authenticators).toHaveLength(1);
    await served.authenticators[0]?.authenticate({} as never);
    expect(seen).toEqual([users]);
  });

  test('with parsers of its own, has the framework\'s and those', () => {
    const served = resourceSite(site, { ...declaration, parsers: [linesParser] }, exposure, users);
    expect(served.parsers).toEqual([...DEFAULT_PARSERS, linesParser]);
  });
});

describe('a parser of an application\'s own', () => {
  const app = express();
  // As a request goes: the CSRF check reads the body with the framework's parsers first, then the resource's view with its own.
  app.post('/', async (req, res) => {
    const first = await requestData(req, 4096).then(() => 'read', (error: unknown) => asApiError(error).code);
    try {
      res.json({ first, data: await requestData(req, 4096, { parsers: [...DEFAULT_PARSERS, linesParser] }) });
    } catch (error) {
      const refused = asApiError(error);
      res.status(refused.status).json({ first, code: refused.code });
    }
  });

  test('reads its media type, although a reader without it refused the body before', async () => {
    const answer = await request(app).post('/').set('Content-Type', 'text/plain').send('title=hello\nbody=world').expect(200);
    expect(answer.body).toEqual({ first: 'unsupported_media_type', data: { title: 'hello', body: 'world' } });
  });

  test('refuses a body it cannot read with parseError: a 400', async () => {
    const answer = await request(app).post('/').set('Content-Type', 'text/plain').send('hello').expect(400);
    expect(answer.body.code).toBe('parse_error');
  });

  test('leaves the framework\'s media types to the framework\'s parsers, read once', async () => {
    const answer = await request(app).post('/').type('json').send('{"title":"json"}').expect(200);
    expect(answer.body).toEqual({ first: 'read', data: { title: 'json' } });
  });

  test('replacing the JSON parser reads JSON its own way, after the framework\'s read it', async () => {
    const upper: Parser = { mediaType: 'application/json', parse: (body) => ({ text: body.toString('utf8').toUpperCase() }) };
    const replaced = express();
    replaced.post('/', async (req, res) => {
      await requestData(req, 4096);
      res.json(await requestData(req, 4096, { parsers: [upper] }));
    });
    expect((await request(replaced).post('/').type('json').send('{"a":1}').expect(200)).body).toEqual({ text: '{"A":1}' });
    expect(jsonParser.mediaType).toBe('application/json');
  });
});

describe('the refusals an application\'s policy raises', () => {
  test('credentialsRefused is a 401 with the scheme\'s challenge', () => {
    const refused = asApiError(credentialsRefused('ApiKey'));
    expect([refused.status, refused.code, refused.headers]).toEqual([401, 'credentials_refused', { 'WWW-Authenticate': 'ApiKey' }]);
  });
});
