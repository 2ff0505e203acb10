/**
 * Which paginators a list offers and which one answers a request: the
 * exposure's default style (else the site's), and the further styles it
 * declares, which a client chooses by naming their parameters.
 */
import type { RequestState } from '../types/request.js';
import type { Paginator, SitePagination } from './types.js';
import type { Pagination, PaginationStyle } from '../types/declaration.js';

/** The styles in the order they are described, as DRF's pagination module lists them. */
export const PAGINATION_STYLES: readonly PaginationStyle[] = ['page', 'limitOffset', 'cursor'];

/** Which paginator answers when several are asked at once: a cursor's place over an offset's over a page number's. */
export const STYLE_PRECEDENCE: readonly PaginationStyle[] = ['cursor', 'limitOffset', 'page'];

/**
 * The most rows a list answers whole unless its exposure says otherwise: far
 * above the lists the documents show and the demo data. A whole list is
 * written as it is read, so its length costs the server no memory, but its
 * time does grow with it, and the client holds it whole: past this, a client
 * is told to ask for pages.
 */
export const DEFAULT_MAX_WHOLE_LIST = 10_000;

export interface OfferedPaginators {
  /** The list's pages when the request names none of the others'; null: the whole list. */
  default: Paginator | null;
  /** Every paginator offered, the default first. */
  all: readonly Paginator[];
  /** The most rows the whole list (no page asked) may hold: a longer one is refused. */
  maxWholeList: number;
}

/** A list's paginators; `owner` names the list in the error for a style its site does not speak (limit/offset under /api). */
export function offeredPaginators(site: { name: string; pagination: SitePagination }, declared: Pagination = {}, owner = ''): OfferedPaginators {
  const sizes = {
    pageSize: declared.pageSize ?? site.pagination.sizes.pageSize,
    maxPageSize: declared.maxPageSize ?? site.pagination.sizes.maxPageSize,
  };
  const make = (style: PaginationStyle): Paginator => {
    const paginator = site.pagination.paginators[style]?.(sizes);
    if (!paginator) throw new Error(`${owner}: site ${site.name} has no ${style} pagination`);
    return paginator;
  };
  const defaultStyle = declared.default ?? site.pagination.default;
  const first = defaultStyle === 'none' ? null : make(defaultStyle);
  const others = PAGINATION_STYLES.filter((style) => style !== defaultStyle && declared.styles?.includes(style)).map(make);
  return { default: first, all: first ? [first, ...others] : others, maxWholeList: declared.maxWholeList ?? DEFAULT_MAX_WHOLE_LIST };
}

/** The paginator of a request: the first other style whose parameters it names, else the default. */
export function chosenPaginator(ctx: RequestState, offered: OfferedPaginators): Paginator | null {
  const others = offered.all.filter((paginator) => paginator !== offered.default);
  for (const style of STYLE_PRECEDENCE) {
    const asked = others.find((paginator) => paginator.style === style && paginator.asked(ctx));
    if (asked) return asked;
  }
  return offered.default;
}
