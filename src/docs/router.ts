import express, { type Router } from 'express';

/** Where the documentation page is served. */
export const DOCS_PATH = '/docs';

/** The documentation page of the OpenAPI description (placeholder until the page lands). */
export function docsRouter(): Router {
  return express.Router();
}
