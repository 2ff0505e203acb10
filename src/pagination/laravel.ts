/**
 * Laravel's paginators as a resource collection answers them:
 * `paginate()` (`?page=&per_page=`) gives `{<wrap>: […], links: {first, last,
 * prev, next}, meta: {current_page, from, last_page, links, path, per_page,
 * to, total}}`; `cursorPaginate()` (`?cursor=`) gives the same keys with
 * `meta: {path, per_page, next_cursor, prev_cursor}`. A page that is no
 * positive whole number is page 1 and one past the last is empty, as in
 * Laravel; a `per_page` that is none is the default (Laravel 8 answered 500).
 */
import type { RequestState } from '../types/request.js';
import type { Translate } from '../i18n.js';
import type { JsonSchema, Parameter } from '../openapi/types.js';
import type { CursorCodec } from './cursor-codec.js';
import { cursorPage } from './keyset.js';
import { laravelLink, laravelPath } from './links.js';
import { countRows, cursorParameterDoc, hasParameter, pageSizeParameter, positiveParameter, readOffsetRows, sizeParameterDoc } from './rows.js';
import { LINK, type ListSource, type Paginator } from './types.js';
import type { PageSizes } from '../types/declaration.js';
import type { SiteExposure } from '../types/resource.js';

/** The key a list's items are under, as the site wraps them. */
export type ListKey = (exposure: SiteExposure) => string;

/** Pages linked on each side of the current one (Laravel's onEachSide). */
const ON_EACH_SIDE = 3;

interface PageLink {
  url: string | null;
  label: string;
  active: boolean;
}

const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

/**
 * The page numbers `meta.links` shows, `null` for a gap ("..."), as
 * Laravel's UrlWindow: every page when there are few, else the first two,
 * the last two and a window around the current page.
 */
export function pageWindow(current: number, lastPage: number, onEachSide = ON_EACH_SIDE): (number | null)[] {
  if (lastPage < onEachSide * 2 + 8) return range(1, lastPage);
  const window = onEachSide + 4;
  const start = range(1, 2);
  const finish = range(lastPage - 1, lastPage);
  if (current <= window) return [...range(1, window + onEachSide), null, ...finish];
  if (current > lastPage - window) return [...start, null, ...range(lastPage - (window + (onEachSide - 1)), lastPage)];
  return [...start, null, ...range(current - onEachSide, current + onEachSide), null, ...finish];
}

function linksSchema(): JsonSchema {
  return { type: 'object', properties: { first: LINK, last: LINK, prev: LINK, next: LINK }, required: ['first', 'last', 'prev', 'next'], additionalProperties: false };
}

function wrappedPage(key: string, item: JsonSchema, meta: JsonSchema): JsonSchema {
  return {
    type: 'object',
    properties: { [key]: { type: 'array', items: item }, links: linksSchema(), meta },
    required: [key, 'links', 'meta'],
    additionalProperties: false,
  };
}

const COUNT: JsonSchema = { type: 'integer', minimum: 0 };
const POSITION: JsonSchema = { type: ['integer', 'null'], minimum: 1 };
const PAGE_LINK: JsonSchema = {
  type: 'object',
  properties: { url: LINK, label: { type: 'string' }, active: { type: 'boolean' } },
  required: ['url', 'label', 'active'],
  additionalProperties: false,
};

export class LengthAwarePagination implements Paginator {
  readonly style = 'page';
  readonly pageParam = 'page';
  readonly perPageParam = 'per_page';
  readonly errors = ['invalid_host'] as const;

  constructor(
    readonly sizes: PageSizes,
    private readonly listKey: ListKey,
  ) {}

  asked(ctx: RequestState): boolean {
    return hasParameter(ctx, this.pageParam, this.perPageParam);
  }

  schemaParameters(t: Translate): Parameter[] {
    return [
      { name: this.pageParam, in: 'query', description: t('parameters.laravel_page'), schema: { type: 'integer', minimum: 1, default: 1 } },
      sizeParameterDoc(t, this.perPageParam, 'per_page', this.sizes),
    ];
  }

  schema(item: JsonSchema, exposure: SiteExposure): JsonSchema {
    const meta: JsonSchema = {
      type: 'object',
      properties: {
        current_page: { type: 'integer', minimum: 1 },
        from: POSITION,
        last_page: { type: 'integer', minimum: 1 },
        links: { type: 'array', items: PAGE_LINK },
        path: { type: 'string', format: 'uri' },
        per_page: { type: 'integer', minimum: 1 },
        to: POSITION,
        total: COUNT,
      },
      required: ['current_page', 'from', 'last_page', 'links', 'path', 'per_page', 'to', 'total'],
      additionalProperties: false,
    };
    return wrappedPage(this.listKey(exposure), item, meta);
  }

  async paginate(ctx: RequestState, { model, query, represent, exposure, keptCount }: ListSource): Promise<unknown> {
    const perPage = pageSizeParameter(ctx, this.perPageParam, this.sizes);
    const current = Math.max(1, positiveParameter(ctx, this.pageParam) ?? 1);
    const total = await countRows(model, query.where, keptCount);
    const lastPage = Math.max(1, Math.ceil(total / perPage));
    const offset = (current - 1) * perPage;
    const rows = current > lastPage ? [] : await readOffsetRows(model, query, offset, Math.min(perPage, total - offset), total);
    const url = (page: number): string => laravelLink(ctx, { [this.pageParam]: String(page) });
    const prev = current > 1 ? url(current - 1) : null;
    const next = current < lastPage ? url(current + 1) : null;
    const pages = pageWindow(current, lastPage).map((page): PageLink =>
      page === null ? { url: null, label: ctx.t('pagination.gap'), active: false } : { url: url(page), label: String(page), active: page === current },
    );
    const links = [{ url: prev, label: ctx.t('pagination.previous'), active: false }, ...pages, { url: next, label: ctx.t('pagination.next'), active: false }];
    return {
      [this.listKey(exposure)]: await represent(rows),
      links: { first: url(1), last: url(lastPage), prev, next },
      meta: {
        current_page: current,
        from: rows.length > 0 ? offset + 1 : null,
        last_page: lastPage,
        links,
        path: laravelPath(ctx),
        per_page: perPage,
        to: rows.length > 0 ? offset + rows.length : null,
        total,
      },
    };
  }
}

export class LaravelCursorPagination implements Paginator {
  readonly style = 'cursor';
  readonly cursorParam = 'cursor';
  readonly perPageParam = 'per_page';
  readonly errors = ['invalid_cursor', 'invalid_host'] as const;

  constructor(
    readonly sizes: PageSizes,
    private readonly listKey: ListKey,
    private readonly cursors: CursorCodec,
  ) {}

  asked(ctx: RequestState): boolean {
    return hasParameter(ctx, this.cursorParam);
  }

  schemaParameters(t: Translate): Parameter[] {
    return [cursorParameterDoc(t, this.cursorParam), sizeParameterDoc(t, this.perPageParam, 'per_page', this.sizes)];
  }

  schema(item: JsonSchema, exposure: SiteExposure): JsonSchema {
    const cursor: JsonSchema = { type: ['string', 'null'] };
    const meta: JsonSchema = {
      type: 'object',
      properties: { path: { type: 'string', format: 'uri' }, per_page: { type: 'integer', minimum: 1 }, next_cursor: cursor, prev_cursor: cursor },
      required: ['path', 'per_page', 'next_cursor', 'prev_cursor'],
      additionalProperties: false,
    };
    return wrappedPage(this.listKey(exposure), item, meta);
  }

  async paginate(ctx: RequestState, source: ListSource): Promise<unknown> {
    const perPage = pageSizeParameter(ctx, this.perPageParam, this.sizes);
    const { rows, next, previous } = await cursorPage(ctx, source, this.cursors, { cursorParam: this.cursorParam, size: perPage });
    const url = (cursor: string | null): string | null => (cursor === null ? null : laravelLink(ctx, { [this.cursorParam]: cursor }));
    return {
      [this.listKey(source.exposure)]: await source.represent(rows),
      links: { first: null, last: null, prev: url(previous), next: url(next) },
      meta: { path: laravelPath(ctx), per_page: perPage, next_cursor: next, prev_cursor: previous },
    };
  }
}
