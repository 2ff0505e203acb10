/**
 * A paginator cuts a list into pages and shapes each page's body with its
 * links, as Django REST Framework's pagination classes do: each site names
 * the paginators that speak its ecosystem (DRF's three at the root,
 * Laravel's length-aware and cursor paginators under /api), and an exposure
 * says which of them its list offers.
 */
import type { FindOptions } from 'sequelize';
import type { RequestState } from '../types/request.js';
import type { ErrorCode } from '../errors.js';
import type { Translate } from '../i18n.js';
import type { JsonSchema, Parameter } from '../openapi/types.js';
import type { FieldDeclaration } from '../resource.js';
import type { Row, RowModel, PlainRow, Item } from '../types/rows.js';
import type { Direction, PageSizes, PaginationStyle } from '../types/declaration.js';
import type { SiteExposure } from '../types/resource.js';

/** A list query whose order is total (it ends with the primary key), so that it can be read backwards and continued. */
export interface OrderedQuery extends FindOptions {
  order: [string, Direction][];
}

/** What a paginator reads from: the query, and how rows become the items the body shows. */
export interface ListSource {
  model: RowModel;
  /** The resource's declared fields: a cursor's values are checked against their kinds. */
  fields: Readonly<Record<string, FieldDeclaration>>;
  query: OrderedQuery;
  /** Model instances or plain rows (`raw: true, nest: true`), each shown as the serializer shows it. */
  represent(rows: readonly (Row | PlainRow)[]): Promise<Item[]>;
  exposure: SiteExposure;
  /** The table's kept count, read with its version before the page (page-tags.ts): an unfiltered page's count without a read of its own. */
  keptCount?: number;
}

export interface Paginator {
  readonly style: PaginationStyle;
  /** The request names this style's own parameters, so it is chosen over the exposure's default style. */
  asked(ctx: RequestState): boolean;
  /** The body of the page the request asks for, links included. */
  paginate(ctx: RequestState, source: ListSource): Promise<unknown>;
  /** Its query parameters, for the API description (DRF's get_schema_operation_parameters). */
  schemaParameters(t: Translate): Parameter[];
  /** Its body around the items' schema (DRF's get_paginated_response_schema). */
  schema(item: JsonSchema, exposure: SiteExposure): JsonSchema;
  /** The errors its parameters may answer. */
  readonly errors: readonly ErrorCode[];
}

export type PaginatorFactory = (sizes: PageSizes) => Paginator;

/** The paginators a site speaks, and what its lists do when an exposure says nothing. */
export interface SitePagination {
  paginators: Partial<Record<PaginationStyle, PaginatorFactory>>;
  default: PaginationStyle | 'none';
  sizes: PageSizes;
}

export const LINK: JsonSchema = { type: ['string', 'null'], format: 'uri' };
