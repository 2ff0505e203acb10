import { Op, type FindOptions } from 'sequelize';
import { queryValue, requestUrl, type RequestContext } from './context.js';
import { ApiError } from './errors.js';
import type { Row, RowModel } from './registry.js';
import type { PageSizes } from './resource.js';
import type { Translate } from './i18n.js';
import type { Parameter } from './openapi/types.js';

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
/** Up to this many skipped rows, a page is one query; deeper ones look their ids up first. */
const DIRECT_OFFSET_LIMIT = 1000;

export type Direction = 'ASC' | 'DESC';

/** A list query whose order is total (it ends with the primary key), so that it can be read backwards. */
export interface OrderedQuery extends FindOptions {
  order: [string, Direction][];
}

function reversed(order: OrderedQuery['order']): OrderedQuery['order'] {
  return order.map(([name, direction]) => [name, direction === 'ASC' ? 'DESC' : 'ASC']);
}

/**
 * As Django REST Framework's PageNumberPagination with `page_size` and
 * `page=last`. Each step is a hook a subclass may override.
 */
export class PageNumberPagination {
  readonly pageParam = 'page';
  readonly pageSizeParam = 'page_size';

  constructor(readonly sizes: PageSizes) {}

  /** The query parameters of a list, as Django REST Framework's get_schema_operation_parameters; texts from the `openapi` catalogue. */
  schemaParameters(t: Translate): Parameter[] {
    const { pageSize, maxPageSize } = this.sizes;
    return [
      {
        name: this.pageParam,
        in: 'query',
        description: t('parameters.page'),
        schema: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', const: 'last' }] },
        example: 1,
      },
      {
        name: this.pageSizeParam,
        in: 'query',
        description: t('parameters.page_size', { default: pageSize, max: maxPageSize }),
        // No bounds: larger asks are clamped and the others fall back, never refused.
        schema: { type: 'integer', default: pageSize },
      },
    ];
  }

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

  async paginate(ctx: RequestContext, model: RowModel, query: OrderedQuery): Promise<Page> {
    const size = this.getPageSize(ctx);
    const count = await model.count({ where: query.where });
    // An empty table still has its first page.
    const pageCount = Math.max(1, Math.ceil(count / size));
    const number = this.getPageNumber(ctx, pageCount);
    const offset = (number - 1) * size;
    const rows = count === 0 ? [] : await this.getPageRows(model, query, offset, Math.min(size, count - offset), count);
    return {
      rows,
      links: {
        count,
        next: number < pageCount ? this.pageUrl(ctx, number + 1) : null,
        previous: number > 1 ? this.pageUrl(ctx, number - 1) : null,
      },
    };
  }

  /**
   * The rows of one page. OFFSET walks every row it skips, so a page nearer the
   * end is read from the end, in the reverse order; and a deep page first
   * finds its ids on the ordering's index alone, then reads those rows.
   */
  async getPageRows(model: RowModel, query: OrderedQuery, offset: number, limit: number, count: number): Promise<Row[]> {
    const fromEnd = offset > count - offset - limit;
    const order = fromEnd ? reversed(query.order) : query.order;
    const skip = fromEnd ? Math.max(0, count - offset - limit) : offset;
    let rows: Row[];
    if (skip <= DIRECT_OFFSET_LIMIT) {
      rows = await model.findAll({ ...query, order, limit, offset: skip });
    } else {
      const key = model.primaryKeyAttribute;
      // Without the includes: they only name related rows, never filter (a filtering include would have to come along).
      const keys = await model.findAll({ where: query.where, order, attributes: [key], limit, offset: skip, raw: true });
      const ids = keys.map((found) => (found as unknown as Record<string, unknown>)[key]);
      const onPage = { [key]: { [Op.in]: ids } };
      const where = query.where ? { [Op.and]: [query.where, onPage] } : onPage;
      rows = ids.length === 0 ? [] : await model.findAll({ ...query, order, where });
    }
    return fromEnd ? rows.reverse() : rows;
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
