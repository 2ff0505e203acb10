import type { Request } from 'express';
import Negotiator from 'negotiator';
import { queryValue } from './context.js';
import { ApiError } from './errors.js';
import type { Renderer } from './contracts.js';

/**
 * `?format=` wins; otherwise the client's most preferred of the offered media
 * types, the first renderer on a tie or when nothing offered is acceptable
 * (JSON unless the client prefers HTML).
 */
export function selectRenderer(req: Request, renderers: readonly Renderer[]): Renderer {
  const [fallback] = renderers;
  if (!fallback) throw new Error('no renderer to select from');
  const format = queryValue(req, 'format');
  if (format !== undefined) {
    const byFormat = renderers.find((renderer) => renderer.format === format);
    if (!byFormat) throw new ApiError('not_found');
    return byFormat;
  }
  const [preferred] = new Negotiator(req).mediaTypes(renderers.map((renderer) => renderer.mediaType));
  return renderers.find((renderer) => renderer.mediaType === preferred) ?? fallback;
}
