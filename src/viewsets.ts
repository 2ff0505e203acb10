import type { FindOptions, IncludeOptions } from 'sequelize';
import type { ActionMethod } from './actions/declaration.js';
import { canContinueAfter, readInBatches, type PlainRow } from './batches.js';
import { ItemStream, type Item, type RequestContext, type Site, type SiteResponse } from './contracts.js';
import { ApiError, fieldLabel, resourceLabel } from './errors.js';
import { chosenPaginator, offeredPaginators, type OfferedPaginators } from './pagination/offered.js';
import type { OrderedQuery, Paginator } from './pagination/types.js';
import { listOrder, listWhere } from './querying/conditions.js';
import type { QueryForm } from './querying/dialect.js';
import { asksAnything, NO_REQUEST, querySpec, type ItemRequest, type ListRequest, type QuerySpec } from './querying/spec.js';
import { baseMetadata } from './metadata.js';
import { requestData } from './parsers.js';
import { parsePk } from './pk.js';
import { checkObjectPermissions, isAuthenticated, type Permission, type PermissionAction } from './permissions.js';
import type { BoundResource, ResourceRegistry, Row } from './registry.js';
import { attachRelations, isEmptyPlan, storedValues, type LoadPlan, type StoredRow } from './relations/loader.js';
import { RelationPlans } from './relations/plans.js';
import { RowWriter } from './writes.js';
import { compiledReads, joinedReferences, storedRecord, type KeyedRead } from './db/compiled.js';
import { entityTag, ifMatchHolds, noneMatch } from './conditional.js';
import { checkedAgainOnUniqueViolation } from './db/unique-violation.js';
import { pageTag, tablesRead, type PageTag } from './page-tags.js';
import type { SiteExposure } from './resource.js';
import { Serializer, type FieldDescription } from './serializers.js';

/** How much of a path id a not-found message repeats. */
const SHOWN_ID_LENGTH = 64;
const BY_ID: FindOptions['order'] = [['id', 'ASC']];
const WRITE_ACTIONS: ReadonlySet<string> = new Set(['create', 'update', 'partial_update']);

/** A compiled read of one row, and the shape its SQL is kept under. */
interface StoredRead {
  read: KeyedRead;
  shape: string;
}

/** 304: the client's copy is current; no body. */
function notModified(tag: string): SiteResponse {
  return { status: 304, headers: { ETag: tag } };
}

function isModel(row: Row | StoredRow): row is Row {
  return typeof (row as Row).get === 'function';
}

/** A representation with only the fields the request selects, and the relations it expands. */
function selected(item: Item, { fields, expand }: ItemRequest): Item {
  if (!fields) return item;
  const keep = new Set([...fields, ...expand.map((path) => path.split('.')[0])]);
  return Object.fromEntries(Object.entries(item).filter(([name]) => keep.has(name)));
}

export interface ViewSetOptions {
  bodyLimit: number;
  registry: ResourceRegistry;
}

/**
 * The six model actions of Django REST Framework's ModelViewSet, for one
 * resource on one site. Each step is a method a subclass may override.
 */
export class ModelViewSet {
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
  /** Serializers of custom actions' input, by action name. */
  private readonly inputs = new Map<string, Serializer>();
  /** The relations shown with rows: many-to-many ids, counts, computed fields, expansions. */
  readonly relations: RelationPlans;
  /** Every write, with the declaration's hooks and many-to-many links. */
  readonly writer: RowWriter;
  /** The compiled read of one row per serializer a retrieve uses. */
  private readonly storedReads = new Map<Serializer, StoredRead>();
  /** The tables a list read with each relation plan reads, for its page tags. */
  private readonly tablesOfPlans = new WeakMap<LoadPlan, string[]>();
  /** Whether the retrieve reads every reference the exposure's fields show (writtenStored); known on first use. */
  private retrieveShowsReferences: boolean | undefined;

  constructor(
    readonly site: Site,
    readonly resource: BoundResource,
    readonly exposure: SiteExposure,
    private readonly options: ViewSetOptions,
  ) {
    const formatTimestamp = (date: Date): string => site.formatTimestamp(date);
    const readOnly = !exposure.actions.some((action) => WRITE_ACTIONS.has(action));
    const { rules } = exposure;
    this.serializer = new Serializer(resource, { fields: exposure.fields, rules, formatTimestamp, readOnly });
    this.retrieveSerializer = exposure.retrieveFields
      ? new Serializer(resource, { fields: exposure.retrieveFields, rules, formatTimestamp, readOnly })
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

  /** Rows as the site shows them: each represented, then what the plan adds loaded for all at once. */
  protected async representRows(rows: readonly (Row | StoredRow)[], serializer: Serializer, expand: readonly string[], plain = false): Promise<Item[]> {
    const items = rows.map((row) => (plain || !isModel(row) ? serializer.representPlain(row as StoredRow) : serializer.represent(row)));
    const plan = this.relations.planFor(serializer, expand);
    if (!isEmptyPlan(plan)) await attachRelations(plan, storedValues(serializer.resource, rows), items);
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
    checkObjectPermissions(ctx, permissions, action, row, this.resource);
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
    const row = pk === null ? null : await this.readStored(serializer, pk);
    if (!row) throw this.notFound(ctx, raw);
    checkObjectPermissions(ctx, permissions, action, storedRecord(this.resource, row), this.resource);
    return row;
  }

  /** The compiled read of one row with the references `serializer` names, and the shape its SQL is kept under; made once per serializer. */
  private storedReadFor(serializer: Serializer): StoredRead {
    let found = this.storedReads.get(serializer);
    if (!found) {
      const include = joinedReferences(serializer.includes());
      if (!include) throw new Error(`${this.resource.declaration.name}: a serializer's includes only name references`);
      found = { read: { model: this.resource.model, include }, shape: `${this.site.name}:${this.exposure.path}:${serializer.fieldNames.join(',')}` };
      this.storedReads.set(serializer, found);
    }
    return found;
  }

  private readStored(serializer: Serializer, pk: unknown): Promise<StoredRow | null> {
    const { read, shape } = this.storedReadFor(serializer);
    return compiledReads(this.options.registry.sequelize).one(read, shape, pk);
  }

  private notFound(ctx: RequestContext, raw: unknown): ApiError {
    const id = typeof raw === 'string' ? raw.slice(0, SHOWN_ID_LENGTH) : '';
    const name = resourceLabel(ctx.t, this.resource);
    return new ApiError('record_not_found', { model: this.resource.declaration.name, name, id });
  }

  protected data(ctx: RequestContext): Promise<unknown> {
    return requestData(ctx.req, this.options.bodyLimit);
  }

  /** A written row as the site shows it; referenced rows it shows by name are loaded first. */
  protected async written(ctx: RequestContext, row: Row): Promise<unknown> {
    const include = this.serializer.includes();
    if (include.length > 0) await row.reload({ include });
    const [item] = await this.representRows([row], this.serializer, []);
    return this.site.itemBody(ctx, this.exposure, item as Item);
  }

  async list(ctx: RequestContext): Promise<SiteResponse> {
    const request = this.site.querying.listRequest(ctx, this.listQuery);
    const serializer = this.serializerFor(request.expand);
    const paginator = this.paginatorFor(ctx);
    // Before anything is read: a write after it only makes the tag older than the page (a streamed list's too).
    const kept = await this.pageTag(ctx, serializer, request.expand);
    if (kept && noneMatch(ctx.req.headers['if-none-match'], kept.tag)) return notModified(kept.tag);
    const headers = kept ? { ETag: kept.tag } : undefined;
    const query = await this.queryOptions(ctx, request, serializer);
    const shown = (item: Item): Item => selected(item, request);
    const represent = async (rows: readonly (Row | StoredRow)[]): Promise<Item[]> => (await this.representRows(rows, serializer, request.expand)).map(shown);
    if (paginator) {
      const { model, declaration } = this.resource;
      const keptCount = kept?.counts.get(declaration.table);
      return { status: 200, data: await paginator.paginate(ctx, { model, fields: declaration.fields, query, represent, exposure: this.exposure, keptCount }), headers };
    }
    if (!ctx.renderer.renderStream) {
      const rows = await this.resource.model.findAll(query);
      return { status: 200, data: this.site.listBody(ctx, this.exposure, await represent(rows)), headers };
    }
    const keyset = canContinueAfter(this.resource.declaration.fields, query.order);
    const batches = readInBatches({ model: this.resource.model, fields: this.resource.declaration.fields, query, keyset });
    const represented = async (rows: PlainRow[]): Promise<Item[]> => (await this.representRows(rows, serializer, request.expand, true)).map(shown);
    // The first batch is read and shown before the answer starts: a failure there is still a clean 500.
    const first = await batches.next();
    const firstItems = first.done ? [] : await represented(first.value);
    const items = new ItemStream(async function* () {
      yield firstItems;
      for await (const rows of batches) yield await represented(rows);
    });
    return { status: 200, data: this.site.listBody(ctx, this.exposure, items), streamed: true, headers };
  }

  async retrieve(ctx: RequestContext): Promise<SiteResponse> {
    const request = this.site.querying.itemRequest(ctx, this.itemQuery);
    const serializer = this.serializerFor(request.expand, this.retrieveSerializer);
    const row = await this.getStoredObject(ctx, 'retrieve', serializer);
    // A row whose answer is its stored values alone has its tag before anything is built.
    const early = isEmptyPlan(this.relations.planFor(serializer, request.expand)) ? entityTag(JSON.stringify(row)) : undefined;
    if (early && noneMatch(ctx.req.headers['if-none-match'], early)) return notModified(early);
    const [item] = await this.representRows([row], serializer, request.expand, true);
    const shown = selected(item as Item, request);
    const tag = early ?? entityTag(JSON.stringify(shown));
    if (noneMatch(ctx.req.headers['if-none-match'], tag)) return notModified(tag);
    return { status: 200, data: this.site.itemBody(ctx, this.exposure, shown), headers: { ETag: tag }, version: tag };
  }

  /**
   * A list page's tag from the versions of the tables it reads, before it is
   * read (page-tags.ts); null where a table keeps none, and for pages shown
   * as HTML, which carry no validator (they also show who is logged in).
   */
  private async pageTag(ctx: RequestContext, serializer: Serializer, expand: readonly string[]): Promise<PageTag | null> {
    if (ctx.renderer.mediaType === 'text/html') return null;
    const plan = this.relations.planFor(serializer, expand);
    let tables = this.tablesOfPlans.get(plan);
    if (!tables) {
      tables = tablesRead(this.resource, serializer, plan);
      this.tablesOfPlans.set(plan, tables);
    }
    return pageTag(ctx, this.options.registry, tables);
  }

  /**
   * `If-Match` on a write: the stored row must still be the version the
   * client read (the ETag of its GET without `expand` or `fields`), else 412
   * and nothing is written. `*` asks only that the row exists.
   */
  protected async checkVersion(ctx: RequestContext, action: PermissionAction, permissions = this.permissions): Promise<void> {
    const header = ctx.req.headers['if-match'];
    if (header === undefined) return;
    await this.holdsVersion(ctx, header, await this.getStoredObject(ctx, action, this.retrieveSerializer, permissions));
  }

  /** 412 unless `header` (If-Match) names the stored row's version. */
  private async holdsVersion(ctx: RequestContext, header: string, row: StoredRow): Promise<void> {
    if (!ifMatchHolds(header, await this.storedTag(row))) throw new ApiError('precondition_failed', { name: resourceLabel(ctx.t, this.resource) });
  }

  /** The tag a GET of the row without `expand` or `fields` answers with, from the row as the retrieve reads it. */
  private async storedTag(row: StoredRow): Promise<string> {
    const serializer = this.retrieveSerializer;
    if (isEmptyPlan(this.relations.planFor(serializer, []))) return entityTag(JSON.stringify(row));
    const [item] = await this.representRows([row], serializer, [], true);
    return entityTag(JSON.stringify(item));
  }

  /** The written row's new tag, for the answer's ETag and the page's forms; null if it is gone (a hook removed it). */
  private async writtenTag(row: Row): Promise<string | null> {
    const stored = await this.readStored(this.retrieveSerializer, row.get(this.resource.model.primaryKeyAttribute));
    return stored ? this.storedTag(stored) : null;
  }

  /** The browsable page's filter form for this list, when it lets clients ask anything. */
  queryForm(ctx: RequestContext): QueryForm | undefined {
    if (!asksAnything(this.listQuery)) return undefined;
    let request: ListRequest = NO_REQUEST;
    try {
      request = this.site.querying.listRequest(ctx, this.listQuery);
    } catch {
      // A refused query still gets the form, to be corrected.
    }
    return this.site.querying.form(ctx, this.listQuery, request);
  }

  /** The authenticated user's own row, with the related rows the exposure includes (oldest first). */
  async current(ctx: RequestContext): Promise<SiteResponse> {
    const row = ctx.user ? await this.resource.model.findByPk(ctx.user.id, { include: this.serializer.includes() }) : null;
    if (!row) throw new ApiError('not_authenticated');
    const included: Record<string, Item[]> = {};
    for (const { name, field, resource, serializer } of this.included) {
      const related = await resource.model.findAll({ where: { [field]: row.get('id') }, order: BY_ID });
      included[name] = await this.representRows(related, serializer, []);
    }
    const [item] = await this.representRows([row], this.serializer, []);
    return { status: 200, data: this.site.currentBody(ctx, this.exposure, item as Item, included) };
  }

  async create(ctx: RequestContext): Promise<SiteResponse> {
    const data = await this.data(ctx);
    const values = await this.serializer.validate(data);
    return checkedAgainOnUniqueViolation(() => this.created(ctx, values), () => this.serializer.validate(data));
  }

  private async created(ctx: RequestContext, values: Record<string, unknown>): Promise<SiteResponse> {
    const stored = await this.createStored(ctx, values);
    if (stored) return this.withTag({ status: 201, data: await this.writtenStored(ctx, stored) }, await this.storedTag(stored));
    const row = await this.performCreate(ctx, values);
    return this.withTag({ status: 201, data: await this.written(ctx, row) }, await this.writtenTag(row));
  }

  private withTag(response: SiteResponse, tag: string | null): SiteResponse {
    return tag ? { ...response, headers: { ...response.headers, ETag: tag }, version: tag } : response;
  }

  protected async performCreate(ctx: RequestContext, values: Record<string, unknown>): Promise<Row> {
    this.owned(ctx, values);
    return this.writer.create(values, { user: ctx.user });
  }

  private owned(ctx: RequestContext, values: Record<string, unknown>): void {
    const ownerField = this.resource.declaration.ownerField;
    if (ownerField && ctx.user) values[ownerField] = ctx.user.id;
  }

  /**
   * A create that is one INSERT, answered with the row as the retrieve reads
   * it (so that its tag needs no second read); null when a subclass writes
   * its own way (performCreate) or the write needs Sequelize (hooks, links).
   */
  private async createStored(ctx: RequestContext, values: Record<string, unknown>): Promise<StoredRow | null> {
    if (!this.writer.oneStatement || this.performCreate !== ModelViewSet.prototype.performCreate) return null;
    this.owned(ctx, values);
    const { read, shape } = this.storedReadFor(this.retrieveSerializer);
    return this.writer.createStored(values, { user: ctx.user }, read, shape);
  }

  /** As `written`, for a row the retrieve's read gave: read again only if the answer shows a reference the retrieve does not. */
  private async writtenStored(ctx: RequestContext, row: StoredRow): Promise<unknown> {
    if (this.retrieveShowsReferences === undefined) {
      const retrieved = new Set(this.retrieveSerializer.includes().map(({ association }) => association));
      this.retrieveShowsReferences = this.serializer.includes().every(({ association }) => retrieved.has(association));
    }
    const shown = this.retrieveShowsReferences ? row : ((await this.readStored(this.serializer, row[this.resource.model.primaryKeyAttribute])) ?? row);
    const [item] = await this.representRows([shown], this.serializer, [], true);
    return this.site.itemBody(ctx, this.exposure, item as Item);
  }

  async update(ctx: RequestContext): Promise<SiteResponse> {
    return this.updateWith(ctx, 'update', false);
  }

  async partialUpdate(ctx: RequestContext): Promise<SiteResponse> {
    return this.updateWith(ctx, 'partial_update', true);
  }

  private async updateWith(ctx: RequestContext, action: PermissionAction, partial: boolean): Promise<SiteResponse> {
    if (this.updatesStored()) return this.updateStored(ctx, action, partial);
    await this.checkVersion(ctx, action);
    const row = await this.getObject(ctx, action);
    const data = await this.data(ctx);
    const validate = (): Promise<Record<string, unknown>> => this.serializer.validate(data, { partial, instance: row });
    const values = await validate();
    await checkedAgainOnUniqueViolation(() => this.performUpdate(ctx, row, values), validate);
    return this.withTag({ status: 200, data: await this.written(ctx, row) }, await this.writtenTag(row));
  }

  /** Whether an update is one compiled UPDATE: no hooks or links, and no subclass reading or writing the row its own way. */
  private updatesStored(): boolean {
    const own = ModelViewSet.prototype;
    return this.writer.oneStatement && this.getObject === own.getObject && this.performUpdate === own.performUpdate;
  }

  /**
   * updateWith as one read and one UPDATE … RETURNING: the row read as the
   * retrieve reads it serves the permissions, If-Match and the validation;
   * the answer and its tag come from the row the UPDATE returns.
   */
  private async updateStored(ctx: RequestContext, action: PermissionAction, partial: boolean): Promise<SiteResponse> {
    const row = await this.getStoredObject(ctx, action, this.retrieveSerializer);
    const header = ctx.req.headers['if-match'];
    if (header !== undefined) await this.holdsVersion(ctx, header, row);
    const data = await this.data(ctx);
    const validate = (): Promise<Record<string, unknown>> => this.serializer.validate(data, { partial, instance: storedRecord(this.resource, row) });
    const values = await validate();
    const { read, shape } = this.storedReadFor(this.retrieveSerializer);
    const key = row[this.resource.model.primaryKeyAttribute];
    const updated = await checkedAgainOnUniqueViolation(() => this.writer.updateStored(key, values, { user: ctx.user }, read, shape), validate);
    // Gone since it was read: as if it had not been found.
    if (!updated) throw this.notFound(ctx, ctx.req.params.pk);
    return this.withTag({ status: 200, data: await this.writtenStored(ctx, updated) }, await this.storedTag(updated));
  }

  protected async performUpdate(ctx: RequestContext, row: Row, values: Record<string, unknown>): Promise<void> {
    await this.writer.update(row, values, { user: ctx.user });
  }

  async destroy(ctx: RequestContext): Promise<SiteResponse> {
    await this.checkVersion(ctx, 'destroy');
    const row = await this.getObject(ctx, 'destroy');
    await this.performDestroy(ctx, row);
    return this.site.destroyed;
  }

  protected async performDestroy(ctx: RequestContext, row: Row): Promise<void> {
    await this.writer.destroy(row, { user: ctx.user });
  }

  /** The serializer of a custom action's input fields (labels from the resource's catalogue). */
  actionInput(name: string): Serializer | undefined {
    const input = this.resource.declaration.actions?.[name]?.input;
    if (!input) return undefined;
    let found = this.inputs.get(name);
    if (!found) {
      const declaration = { ...this.resource.declaration, fields: { ...this.resource.declaration.fields, ...input } };
      found = new Serializer({ ...this.resource, declaration }, { fields: Object.keys(input), formatTimestamp: (date) => this.site.formatTimestamp(date) });
      this.inputs.set(name, found);
    }
    return found;
  }

  /**
   * A custom action (DRF's @action): the row's object permissions, the
   * input validated, then the declaration's `run`. Its answer is the row as
   * the site shows it (a detail action), 204 (a list action), or its own.
   */
  async runAction(ctx: RequestContext, name: string, permissions: readonly Permission[]): Promise<SiteResponse> {
    const declared = this.resource.declaration.actions?.[name];
    if (!declared) throw new ApiError('not_found');
    // A detail action that may change its row honours If-Match as the edits do.
    if (declared.detail && ctx.req.method !== 'GET' && ctx.req.method !== 'HEAD') await this.checkVersion(ctx, name, permissions);
    let row = declared.detail ? await this.getObject(ctx, name, [], permissions) : null;
    const input = this.actionInput(name);
    const data = input ? await input.validate(await this.data(ctx)) : {};
    const { user } = ctx;
    const { writer } = this;
    const result = await declared.run({
      user,
      row,
      data,
      method: (ctx.req.method === 'HEAD' ? 'GET' : ctx.req.method) as ActionMethod,
      update: async (values, transaction) => {
        if (!row) throw new Error(`${this.resource.declaration.name}.${name} is a list action: it has no row to update`);
        return writer.update(row, values, { user, transaction });
      },
      transaction: (work) => writer.transaction(work),
      model: writer.modelOf,
      refuse: (field, key, params) => writer.refuse(field, key, params),
    });
    if (result && 'body' in result) return { status: result.status ?? 200, data: result.body };
    if (result) row = result;
    if (!row) return { status: 204 };
    await row.reload();
    return { status: 200, data: await this.written(ctx, row) };
  }

  /** OPTIONS, as Django REST Framework's SimpleMetadata: the write action is listed only if this user may use it. */
  async metadata(ctx: RequestContext, route: 'list' | 'detail', name: string): Promise<SiteResponse> {
    const actions: Record<string, Record<string, FieldDescription>> = {};
    const method = route === 'list' ? 'POST' : 'PUT';
    const action = route === 'list' ? 'create' : 'update';
    if (this.exposure.actions.includes(action) && (await this.mayUse(ctx, route))) {
      actions[method] = this.serializer.describe(
        (field) => fieldLabel(ctx.t, this.resource.key, field),
        (field, choice) => ctx.t(`resources:${this.resource.key}.choices.${field}.${choice}`, { defaultValue: choice }),
      );
    }
    const data = baseMetadata(ctx, name);
    if (Object.keys(actions).length > 0) data.actions = actions;
    if (route === 'list' && this.exposure.actions.includes('list')) Object.assign(data, this.site.querying.metadata(this.listQuery));
    return { status: 200, data };
  }

  private async mayUse(ctx: RequestContext, route: 'list' | 'detail'): Promise<boolean> {
    if (route === 'list') return true;
    try {
      await this.getObject(ctx, 'update');
      return true;
    } catch (error) {
      if (error instanceof ApiError) return false;
      throw error;
    }
  }
}
