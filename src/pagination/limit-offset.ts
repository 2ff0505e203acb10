/**
 * Django REST Framework's LimitOffsetPagination: `?limit=&offset=`, the same
 * `{count, next, previous, results}` as page numbers. A limit past the
 * maximum is the maximum; a limit that is no positive number, the default; an
 * offset that is no number, 0; an offset past the end, an empty page.
 */
import type { RequestState } from '../types/request.js';
import type { Translate } from '../i18n.js';
import type { JsonSchema, Parameter } from '../openapi/types.js';
import { drfLink } from './links.js';
import { drfPageSchema } from './page-number.js';
import { countRows, hasParameter, pageSizeParameter, positiveParameter, readOffsetRows, sizeParameterDoc } from './rows.js';
import type { ListSource, Paginator } from './types.js';
import type { PageSizes } from '../types/declaration.js';

export class LimitOffsetPagination implements Paginator {
  readonly style = 'limitOffset';
  readonly limitParam = 'limit';
  readonly offsetParam = 'offset';
  readonly errors = ['invalid_host'] as const;

  constructor(readonly sizes: PageSizes) {}

  asked(ctx: RequestState): boolean {
    return hasParameter(ctx, this.limitParam, this.offsetParam);
  }

  schemaParameters(t: Translate): Parameter[] {
    return [
      sizeParameterDoc(t, this.limitParam, 'limit', this.sizes),
      { name: this.offsetParam, in: 'query', description: t('parameters.offset'), schema: { type: 'integer', default: 0 } },
    ];
  }

  schema(item: JsonSchema): JsonSchema {
    return drfPageSchema(item, true);
  }

  getLimit(ctx: RequestState): number {
    return pageSizeParameter(ctx, this.limitParam, this.sizes);
  }

  getOffset(ctx: RequestState): number {
    return positiveParameter(ctx, this.offsetParam) ?? 0;
  }

  async paginate(ctx: RequestState, { model, query, represent, keptCount }: ListSource): Promise<unknown> {
    const limit = this.getLimit(ctx);
    const offset = this.getOffset(ctx);
    const count = await countRows(model, query.where, keptCount);
    const rows = await readOffsetRows(model, query, offset, Math.min(limit, count - offset), count);
    return { count, next: this.nextLink(ctx, limit, offset, count), previous: this.previousLink(ctx, limit, offset), results: await represent(rows) };
  }

  nextLink(ctx: RequestState, limit: number, offset: number, count: number): string | null {
    if (offset + limit >= count) return null;
    return drfLink(ctx, { [this.limitParam]: String(limit), [this.offsetParam]: String(offset + limit) });
  }

  /** The page before, whose offset is never below 0: the first page's link names no offset. */
  previousLink(ctx: RequestState, limit: number, offset: number): string | null {
    if (offset <= 0) return null;
    const before = offset - limit;
    return drfLink(ctx, { [this.limitParam]: String(limit), [this.offsetParam]: before <= 0 ? null : String(before) });
  }
}
