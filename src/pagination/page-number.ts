/**
 * Django REST Framework's PageNumberPagination, with `page_size` and
 * `page=last`: `{count, next, previous, results}`. Each step is a hook a
 * subclass may override.
 */
import { queryValue } from '../context.js';
import type { RequestState } from '../types/request.js';
import { ApiError } from '../errors.js';
import type { Translate } from '../i18n.js';
import type { JsonSchema, Parameter } from '../openapi/types.js';
import { drfLink } from './links.js';
import { countRows, hasParameter, pageSizeParameter, POSITIVE, readOffsetRows, sizeParameterDoc } from './rows.js';
import { LINK, type ListSource, type OrderedQuery, type Paginator } from './types.js';
import type { PlainRow } from '../types/rows.js';
import type { PageSizes } from '../types/declaration.js';

export type { OrderedQuery };

export interface PageLinks {
  count: number;
  next: string | null;
  previous: string | null;
}

export interface Page {
  rows: PlainRow[];
  links: PageLinks;
}

/** DRF's paginated body: the count, the neighbours' links and the items. */
export function drfPageSchema(item: JsonSchema, counted: boolean): JsonSchema {
  const properties: Record<string, JsonSchema> = { next: LINK, previous: LINK, results: { type: 'array', items: item } };
  return {
    type: 'object',
    properties: counted ? { count: { type: 'integer', minimum: 0 }, ...properties } : properties,
    required: counted ? ['count', 'next', 'previous', 'results'] : ['next', 'previous', 'results'],
    additionalProperties: false,
  };
}

export class PageNumberPagination implements Paginator {
  readonly style = 'page';
  readonly pageParam = 'page';
  readonly pageSizeParam = 'page_size';
  readonly errors = ['invalid_page', 'invalid_host'] as const;

  constructor(readonly sizes: PageSizes) {}

  asked(ctx: RequestState): boolean {
    return hasParameter(ctx, this.pageParam);
  }

  /** The query parameters of a list, as Django REST Framework's get_schema_operation_parameters; texts from the `openapi` catalogue. */
  schemaParameters(t: Translate): Parameter[] {
    return [
      {
        name: this.pageParam,
        in: 'query',
        description: t('parameters.page'),
        schema: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', const: 'last' }] },
        example: 1,
      },
      sizeParameterDoc(t, this.pageSizeParam, 'page_size', this.sizes),
    ];
  }

  schema(item: JsonSchema): JsonSchema {
    return drfPageSchema(item, true);
  }

  /** `page_size` up to the maximum; zero, negative or non-numeric gives the default. */
  getPageSize(ctx: RequestState): number {
    return pageSizeParameter(ctx, this.pageSizeParam, this.sizes);
  }

  /** 1 when absent, `last` for the last page; anything else must name an existing page. */
  getPageNumber(ctx: RequestState, pageCount: number): number {
    const raw = queryValue(ctx.req, this.pageParam);
    if (raw === undefined) return 1;
    if (raw === 'last') return pageCount;
    const number = POSITIVE.test(raw) ? Number(raw) : NaN;
    if (!(number >= 1 && number <= pageCount)) throw new ApiError('invalid_page');
    return number;
  }

  async page(ctx: RequestState, { model, query, keptCount }: Pick<ListSource, 'model' | 'query' | 'keptCount'>): Promise<Page> {
    const size = this.getPageSize(ctx);
    const count = await countRows(model, query.where, keptCount);
    // An empty table still has its first page.
    const pageCount = Math.max(1, Math.ceil(count / size));
    const number = this.getPageNumber(ctx, pageCount);
    const offset = (number - 1) * size;
    const rows = await readOffsetRows(model, query, offset, Math.min(size, count - offset), count);
    return {
      rows,
      links: {
        count,
        next: number < pageCount ? this.pageUrl(ctx, number + 1) : null,
        previous: number > 1 ? this.pageUrl(ctx, number - 1) : null,
      },
    };
  }

  async paginate(ctx: RequestState, source: ListSource): Promise<unknown> {
    const { rows, links } = await this.page(ctx, source);
    return { count: links.count, next: links.next, previous: links.previous, results: await source.represent(rows) };
  }

  /** The request's own URL for another page; page 1 drops the parameter. Other parameters stay, sorted by name. */
  pageUrl(ctx: RequestState, number: number): string {
    return drfLink(ctx, { [this.pageParam]: number === 1 ? null : String(number) });
  }
}
