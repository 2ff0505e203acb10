/**
 * Django REST Framework's CursorPagination: `{next, previous, results}` with
 * opaque `?cursor=` links, in the list's current order (the client's
 * `?ordering=` included, as DRF's does with an OrderingFilter). `page_size`
 * as for page numbers. A cursor that is not one of this list's is DRF's
 * invalid-cursor 404.
 */
import type { RequestState } from '../types/request.js';
import type { Translate } from '../i18n.js';
import type { JsonSchema, Parameter } from '../openapi/types.js';
import type { CursorCodec } from './cursor-codec.js';
import { cursorPage } from './keyset.js';
import { drfLink } from './links.js';
import { drfPageSchema } from './page-number.js';
import { cursorParameterDoc, hasParameter, pageSizeParameter, sizeParameterDoc } from './rows.js';
import type { ListSource, Paginator } from './types.js';
import type { PageSizes } from '../types/declaration.js';

export class CursorPagination implements Paginator {
  readonly style = 'cursor';
  readonly cursorParam = 'cursor';
  readonly pageSizeParam = 'page_size';
  readonly errors = ['invalid_cursor', 'invalid_host'] as const;

  constructor(
    readonly sizes: PageSizes,
    private readonly cursors: CursorCodec,
  ) {}

  asked(ctx: RequestState): boolean {
    return hasParameter(ctx, this.cursorParam);
  }

  schemaParameters(t: Translate): Parameter[] {
    return [cursorParameterDoc(t, this.cursorParam), sizeParameterDoc(t, this.pageSizeParam, 'page_size', this.sizes)];
  }

  schema(item: JsonSchema): JsonSchema {
    return drfPageSchema(item, false);
  }

  async paginate(ctx: RequestState, source: ListSource): Promise<unknown> {
    const size = pageSizeParameter(ctx, this.pageSizeParam, this.sizes);
    const { rows, next, previous } = await cursorPage(ctx, source, this.cursors, { cursorParam: this.cursorParam, size });
    const link = (cursor: string | null): string | null => (cursor === null ? null : drfLink(ctx, { [this.cursorParam]: cursor }));
    return { next: link(next), previous: link(previous), results: await source.represent(rows) };
  }
}
