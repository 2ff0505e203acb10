import type { FindOptions } from 'sequelize';
import { queryValue, requestUrl, type RequestContext } from './context.js';
import { ApiError } from './errors.js';
import type { Row, RowModel } from './registry.js';
import type { PageSizes } from './resource.js';

export interface PageLinks {
  count: number;
  next: string | null;
  previous: string | null;
}

export interface Page {
  rows: Row[];
  links: PageLinks;
}

const POSITIVE = /^\d+$/;

/**
 * As Django REST Framework's PageNumberPagination with `page_size` and
 * `page=last`. Each step is a hook a subclass may override.
 */
export class PageNumberPagination {
  readonly pageParam = 'page';
  readonly pageSizeParam = 'page_size';

  constructor(readonly sizes: PageSizes) {}

  /** `page_size` up to the maximum; zero, negative or non-numeric gives the default. */
  getPageSize(ctx: RequestContext): number {
    const raw = queryValue(ctx.req, this.pageSizeParam);
    const requested = raw !== undefined && POSITIVE.test(raw) ? Number(raw) : 0;
    if (requested <= 0) return this.sizes.pageSize;
    return Math.min(requested, this.sizes.maxPageSize);
  }

  /** 1 when absent, `last` for the last page; anything else must name an existing page. */
  getPageNumber(ctx: RequestContext, pageCount: number): number {
    const raw = queryValue(ctx.req, this.pageParam);
    if (raw === undefined) return 1;
    if (raw === 'last') return pageCount;
    const number = POSITIVE.test(raw) ? Number(raw) : NaN;
    if (!(number >= 1 && number <= pageCount)) throw new ApiError('invalid_page');
    return number;
  }

  async paginate(ctx: RequestContext, model: RowModel, query: FindOptions): Promise<Page> {
    const size = this.getPageSize(ctx);
    const count = await model.count({ where: query.where });
    // An empty table still has its first page.
    const pageCount = Math.max(1, Math.ceil(count / size));
    const number = this.getPageNumber(ctx, pageCount);
    const rows = count === 0 ? [] : await model.findAll({ ...query, limit: size, offset: (number - 1) * size });
    return {
      rows,
      links: {
        count,
        next: number < pageCount ? this.pageUrl(ctx, number + 1) : null,
        previous: number > 1 ? this.pageUrl(ctx, number - 1) : null,
      },
    };
  }

  /** The request's own URL for another page; page 1 drops the parameter. Other parameters stay, sorted by name. */
  pageUrl(ctx: RequestContext, number: number): string {
    const url = requestUrl(ctx.req);
    const values = new Map<string, string[]>();
    for (const [name, value] of url.searchParams) values.set(name, [...(values.get(name) ?? []), value]);
    if (number === 1) values.delete(this.pageParam);
    else values.set(this.pageParam, [String(number)]);
    const search = new URLSearchParams();
    for (const name of [...values.keys()].sort()) for (const value of values.get(name) ?? []) search.append(name, value);
    url.search = search.toString();
    return url.toString();
  }
}
