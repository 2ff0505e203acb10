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
  const accept = req.headers.accept ?? '';
  let chosen = chosenRenderers.get(renderers);
  if (!chosen) {
    chosen = new Map();
    chosenRenderers.set(renderers, chosen);
  }
  let renderer = chosen.get(accept);
  if (!renderer) {
    const [preferred] = new Negotiator(req).mediaTypes(renderers.map((offered) => offered.mediaType));
    renderer = renderers.find((offered) => offered.mediaType === preferred) ?? fallback;
    if (chosen.size >= CHOSEN_KEPT) chosen.clear();
    chosen.set(accept, renderer);
  }
  return renderer;
}

/** The renderer chosen for each Accept value seen, per site's renderers, up to a bound: clients send few distinct ones. */
const chosenRenderers = new WeakMap<readonly Renderer[], Map<string, Renderer>>();
const CHOSEN_KEPT = 500;
