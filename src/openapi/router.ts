import express, { type Router } from 'express';
import { chooseLanguage, type Language } from '../i18n.js';
import { openApiDocument, type DescriptionSources } from './document.js';
import type { PlainRouteDocs } from './types.js';

export const OPENAPI_PATH = '/openapi.json';

/** This route as the description shows it: the description documents itself. */
export const OPENAPI_DOCS: PlainRouteDocs = {
  path: OPENAPI_PATH,
  summary: 'operations.openapi',
  responses: [
    {
      status: 200,
      schema: {
        type: 'object',
        properties: { openapi: { type: 'string', const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } },
        required: ['openapi', 'info', 'paths'],
      },
    },
  ],
};

/**
 * `GET /openapi.json`: the OpenAPI description of every site, in English
 * unless Accept-Language prefers Japanese. Built once per language: the
 * routes never change while the process runs.
 */
export function openApiRouter(sources: DescriptionSources): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  const built = new Map<Language, Buffer>();
  router.get(OPENAPI_PATH, (req, res) => {
    const language = chooseLanguage(req.get('accept-language'), 'en');
    let body = built.get(language);
    if (!body) {
      body = Buffer.from(JSON.stringify(openApiDocument(sources, language)));
      built.set(language, body);
    }
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Vary', 'Accept-Language');
    res.setHeader('Cache-Control', 'no-cache');
    res.end(body);
  });
  return router;
}
