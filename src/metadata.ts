import type { RequestContext } from './contracts.js';
import { parsedMediaTypes } from './parsers.js';

/** What every OPTIONS answer starts with, as Django REST Framework's SimpleMetadata. */
export function baseMetadata(ctx: RequestContext, name: string): Record<string, unknown> {
  return {
    name,
    description: '',
    renders: ctx.site.renderers.map((renderer) => renderer.mediaType),
    parses: [...parsedMediaTypes(ctx.site.parsers)],
  };
}
