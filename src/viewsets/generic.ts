/**
 * What every action of a viewset stands on, as Django REST Framework's
 * GenericAPIView: the serializers and permissions of one exposure, the row a
 * path names (read by Sequelize or by compiled SQL), the list's query and
 * paginator, and rows represented as the site shows them.
 */
import type { IncludeOptions, Transaction } from 'sequelize';
import type { RequestContext, Site } from '../contracts.js';
import { compiledReads, joinedReferences, storedRecord, type KeyedRead } from '../db/compiled.js';
import { VersionedRows, type KeptBounds } from '../db/versioned-rows.js';
import { ApiError, resourceLabel } from '../errors.js';
import { offeredPaginators, chosenPaginator, type OfferedPaginators } from '../pagination/offered.js';
import type { OrderedQuery, Paginator } from '../pagination/types.js';
import { requestData } from '../parsers.js';
import { checkObjectPermissions, isAuthenticated } from '../permissions.js';
import { parsePk } from '../pk.js';
import { listOrder, listWhere } from '../querying/conditions.js';
import { querySpec, type ListRequest, type QuerySpec } from '../querying/spec.js';
import type { ResourceRegistry } from '../registry.js';
import { attachRelations, isEmptyPlan, storedValues, type StoredRow } from '../relations/loader.js';
import { RelationPlans } from '../relations/plans.js';
import { Serializer } from '../serializers.js';
import { RowWriter } from '../writes.js';
import type { Row, Item } from '../types/rows.js';
import type { SiteExposure, Permission, PermissionAction, BoundResource } from '../types/resource.js';

/** How much of a path id a not-found message repeats. */
const SHOWN_ID_LENGTH = 64;
const WRITE_ACTIONS: ReadonlySet<string> = new Set(['create', 'update', 'partial_update']);
/** The rows a retrieve keeps of each shape (src/db/versioned-rows.ts): bounded in bytes too, for a text column may hold megabytes. */
const KEPT_ROWS: KeptBounds = { maxEntries: 10_000, maxBytes: 4 * 1024 * 1024 };

/** A compiled read of one row, the shape its SQL is kept under, and the rows a GET read of it last. */
export interface StoredRead {
  read: KeyedRead;
  shape: string;
  kept: VersionedRows<number, StoredRow>;
}

export interface ViewSetOptions {
  bodyLimit: number;
  registry: ResourceRegistry;
}

function isModel(row: Row | StoredRow): row is Row {
  return typeof (row as Row).get === 'function';
}

export class GenericViewSet {
  readonly serializer: Serializer;
  /** What the retrieve action shows; the same serializer unless the exposure names retrieveFields. */
  readonly retrieveSerializer: Serializer;
  /** Related rows the current action shows, each with its own serializer of every visible field. */
  readonly included: readonly { name: string; field: string; resource: BoundResource; serializer: Serializer }[];
  readonly permissions: readonly Permission[];
  /** What clients may ask of the list, and of a single row. */
  readonly listQuery: QuerySpec;
  readonly itemQuery: QuerySpec;
  /** The paginators the list offers, its default first: a request chooses another by its parameters. */
  readonly pagination: OfferedPaginators;
  /** Serializers showing the exposure's fields and some references, by the references' names. */
  private readonly expanded = new Map<string, Serializer>();
  /** The relations shown with rows: many-to-many ids, counts, computed fields, expansions. */
  readonly relations: RelationPlans;
  /** Every write, with the declaration's hooks and many-to-many links. */
  readonly writer: RowWriter;
  /** The compiled read of one row per serializer a retrieve uses. */
  private readonly storedReads = new Map<Serializer, StoredRead>();

  constructor(
    readonly site: Site,
    readonly resource: BoundResource,
    readonly exposure: SiteExposure,
    protected readonly options: ViewSetOptions,
  ) {
    const formatTimestamp = (date: Date): string => site.formatTimestamp(date);
    const readOnly = !exposure.actions.some((action) => WRITE_ACTIONS.has(action));
    const { rules } = exposure;
    const { numbersAsText, uniqueSetErrors } = site;
    this.serializer = new Serializer(resource, { fields: exposure.fields, rules, formatTimestamp, readOnly, numbersAsText, uniqueSetErrors });
    this.retrieveSerializer = exposure.retrieveFields
      ? new Serializer(resource, { fields: exposure.retrieveFields, rules, formatTimestamp, readOnly, numbersAsText, uniqueSetErrors })
      : this.serializer;
    this.included = (exposure.include ?? []).map((name) => {
      const relation = resource.related.get(name);
      if (!relation) throw new Error(`${resource.declaration.name} has no related rows named ${name}`);
      const visible = Object.entries(relation.resource.declaration.fields).filter(([, field]) => !field.hidden);
      const fields = visible.map(([fieldName]) => fieldName);
      const serializer = new Serializer(relation.resource, { fields, formatTimestamp, readOnly: true });
      return { name, ...relation, serializer };
    });
    this.permissions = exposure.permissions ?? resource.declaration.permissions ?? [isAuthenticated];
    this.listQuery = querySpec(resource, exposure, exposure.fields);
    this.itemQuery = querySpec(resource, exposure, exposure.retrieveFields ?? exposure.fields);
    this.pagination = offeredPaginators(site, exposure.pagination, resource.declaration.name);
    this.relations = new RelationPlans(site);
    this.writer = new RowWriter(resource, (name) => options.registry.get(name).model);
  }

  /** Rows as the site shows them: each represented, then what the plan adds loaded for all at once (inside `transaction` when given). */
  protected async representRows(rows: readonly (Row | StoredRow)[], serializer: Serializer, expand: readonly string[], plain = false, transaction?: Transaction): Promise<Item[]> {
    const items = rows.map((row) => (plain || !isModel(row) ? serializer.representPlain(row as StoredRow) : serializer.represent(row)));
    const plan = this.relations.planFor(serializer, expand);
    if (!isEmptyPlan(plan)) await attachRelations(plan, storedValues(serializer.resource, rows), items, transaction);
    return items;
  }

  /** The paginator of a request (DRF's `paginator`): the first other style whose parameters it names, else the default. */
  protected paginatorFor(ctx: RequestContext): Paginator | null {
    return chosenPaginator(ctx, this.pagination);
  }

  /** The serializer of `base`'s fields and the references `expand` names. */
  serializerFor(expand: readonly string[], base: Serializer = this.serializer): Serializer {
    // Only references shown by name join their row; every other relation is loaded apart (relations/loader.ts).
    const added = expand.filter((name) => !base.fieldNames.includes(name) && this.relations.joinsByName(this.resource, name));
    if (added.length === 0) return base;
    const key = `${base === this.serializer ? 'list' : 'item'}:${added.join(',')}`;
    let found = this.expanded.get(key);
    if (!found) {
      found = base.withFields([...base.fieldNames, ...added]);
      this.expanded.set(key, found);
    }
    return found;
  }

  /**
   * The list's query for what the request asks: its filters and search, the
   * order asked for (else the exposure's), always ending with the primary
   * key so that pages and batches never overlap.
   */
  protected async queryOptions(_ctx: RequestContext, request: ListRequest, serializer: Serializer): Promise<OrderedQuery> {
    const order = listOrder(request.ordering, this.exposure.ordering, this.resource.model.primaryKeyAttribute);
    const where = await listWhere(this.listQuery, request);
    return { order, include: serializer.includes(), ...(where ? { where } : {}) };
  }

  protected async getObject(ctx: RequestContext, action: PermissionAction, include: IncludeOptions[] = [], permissions = this.permissions): Promise<Row> {
    const raw = ctx.req.params.pk;
    const pk = parsePk(typeof raw === 'string' ? raw : undefined);
    const row = pk === null ? null : await this.resource.model.findByPk(pk, { include });
    if (!row) throw this.notFound(ctx, raw);
    await checkObjectPermissions(ctx, permissions, action, row, this.resource);
    return row;
  }

  /**
   * The row a read shows, as a plain row read by compiled SQL (no model
   * instance), with the references the serializer shows by name; its object
   * permissions checked as getObject's.
   */
  protected async getStoredObject(ctx: RequestContext, action: PermissionAction, serializer: Serializer, permissions = this.permissions): Promise<StoredRow> {
    const raw = ctx.req.params.pk;
    const pk = parsePk(typeof raw === 'string' ? raw : undefined);
    // A GET of the row may take it as a GET read it last, while none of its tables changed since.
    const reading = action === 'retrieve' && (ctx.req.method === 'GET' || ctx.req.method === 'HEAD');
    const row = pk === null ? null : reading ? await this.keptOrRead(ctx, serializer, pk) : await this.readStored(serializer, pk);
    if (!row) throw this.notFound(ctx, raw);
    await checkObjectPermissions(ctx, permissions, action, storedRecord(this.resource, row), this.resource);
    return row;
  }

  /** The compiled read of one row with the references `serializer` names, and the shape its SQL is kept under; made once per serializer. */
  protected storedReadFor(serializer: Serializer): StoredRead {
    let found = this.storedReads.get(serializer);
    if (!found) {
      const include = joinedReferences(serializer.includes());
      if (!include) throw new Error(`${this.resource.declaration.name}: a serializer's includes only name references`);
      const read = { model: this.resource.model, include };
      found = { read, shape: `${this.site.name}:${this.exposure.path}:${serializer.fieldNames.join(',')}`, kept: new VersionedRows(read, KEPT_ROWS) };
      this.storedReads.set(serializer, found);
    }
    return found;
  }

  /** The row as of the request's snapshot: the one a GET read last while its tables are unchanged, else read; a copy, so that nothing done to it reaches the kept one. */
  private async keptOrRead(ctx: RequestContext, serializer: Serializer, pk: number): Promise<StoredRow | null> {
    const row = await this.storedReadFor(serializer).kept.get(pk, ctx.req, () => this.readStored(serializer, pk));
    return row && { ...row };
  }

  protected readStored(serializer: Serializer, pk: unknown, transaction?: Transaction): Promise<StoredRow | null> {
    const { read, shape } = this.storedReadFor(serializer);
    return compiledReads(this.options.registry.sequelize).one(read, shape, pk, transaction);
  }

  protected notFound(ctx: RequestContext, raw: unknown): ApiError {
    const id = typeof raw === 'string' ? raw.slice(0, SHOWN_ID_LENGTH) : '';
    const name = resourceLabel(ctx.t, this.resource);
    return new ApiError('record_not_found', { model: this.resource.declaration.name, name, id });
  }

  protected data(ctx: RequestContext): Promise<unknown> {
    const { structuredJson, parsers } = this.site;
    return requestData(ctx.req, this.options.bodyLimit, { structuredJson, ...(parsers ? { parsers } : {}) });
  }
}
