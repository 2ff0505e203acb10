import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import { chooseLanguage, translator } from '../i18n.js';
import { OPENAPI_PATH } from '../openapi/router.js';
import { projectRoot } from '../paths.js';
import { renderPage } from '../renderers.js';

/** Where the documentation page is served. */
export const DOCS_PATH = '/docs';

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * What the page loads, by the name it has under `assets/`: Swagger UI's own
 * files, and our settings for it. The package's other files (its sample page
 * with the petstore, the other bundles, source maps) are not served.
 * `docs.css` adapts Swagger UI's layout to narrow screens.
 */
const ASSETS: ReadonlyMap<string, string> = new Map([
  ...['swagger-ui.css', 'index.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png'].map(
    (name): [string, string] => [name, path.join(swaggerUiDir, name)],
  ),
  // Next to this file in the checkout: the compiler copies no JavaScript or CSS to dist/.
  ['swagger-initializer.js', path.join(projectRoot, 'src', 'docs', 'swagger-initializer.js')],
  ['docs.css', path.join(projectRoot, 'src', 'docs', 'docs.css')],
]);

/** As long as the other pages' scripts and styles (/static, the admin's): the names carry no version. */
const ASSET_MAX_AGE = '1h';

function sendPage(req: Request, res: Response): void {
  // Swagger UI speaks English: English unless the reader asks for Japanese.
  const language = chooseLanguage(req.headers['accept-language'], 'en');
  const title = translator(language, ['common'])('page.brand');
  res.setHeader('Vary', 'Accept-Language');
  res.setHeader('Cache-Control', 'no-cache');
  // Absolute asset paths: the page answers both `/docs` and `/docs/`.
  const html = renderPage('docs', { title, language, assets: `${req.baseUrl}/assets`, descriptionUrl: OPENAPI_PATH });
  res.type('html').send(html);
}

/** `/docs`: Swagger UI over `/openapi.json`, every file from this app. */
export function docsRouter(): Router {
  const router = express.Router({ caseSensitive: true });
  router.get('/', sendPage);
  router.all('/', (_req, res) => {
    res.setHeader('Allow', 'GET, HEAD');
    res.status(405).end();
  });
  router.get('/assets/:name', (req, res, next) => {
    const file = ASSETS.get(req.params.name);
    if (!file) return next();
    res.sendFile(file, { maxAge: ASSET_MAX_AGE }, (error) => error && next(error));
  });
  return router;
}
