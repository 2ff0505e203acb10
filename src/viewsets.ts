import type { ActionMethod, ActionResult } from './actions/declaration.js';
import { BatchReader, canContinueAfter, holdsMoreThan } from './batches.js';
import { ItemStream, type RequestContext, type SiteResponse } from './contracts.js';
import { ApiError, fieldLabel } from './errors.js';
import { asksAnything, NO_REQUEST, type ItemRequest, type ListRequest } from './querying/spec.js';
import type { QueryForm } from './querying/dialect.js';
import type { Translate } from './i18n.js';
import { baseMetadata } from './metadata.js';
import { checkPermissions } from './permissions.js';
import { isEmptyPlan, type StoredRow } from './relations/loader.js';
import { entityTag, noneMatch } from './conditional.js';
import { namesUpdateTime } from './db/row-version.js';
import { checkedAgainOnUniqueViolation } from './db/unique-violation.js';
import { Serializer, type FieldDescription } from './serializers.js';
import { notModified, withTag } from './viewsets/conditional.js';
import type { PageTag } from './page-tags.js';
import type { OrderedQuery } from './pagination/types.js';
import { StoredWritesViewSet } from './viewsets/stored-writes.js';
import type { Row, PlainRow, Item } from './types/rows.js';
import type { Permission, PermissionAction } from './types/resource.js';

export type { ViewSetOptions } from './viewsets/generic.js';

const BY_ID: OrderedQuery['order'] = [['id', 'ASC']];

/** A representation with only the fields the request selects, and the relations it expands. */
function selected(item: Item, { fields, expand }: ItemRequest): Item {
  if (!fields) return item;
  const keep = new Set([...fields, ...expand.map((path) => path.split('.')[0])]);
  return Object.fromEntries(Object.entries(item).filter(([name]) => keep.has(name)));
}

/**
 * A list read in batches wherever a body shows it: the first reading goes on
 * from the batch read before the answer started (`first`, then `reader`),
 * any other reads it again from the start (`again`).
 */
function readingsOf(first: Item[], reader: BatchReader, again: () => BatchReader, represent: (rows: PlainRow[]) => Promise<Item[]>): ItemStream {
  let started: { first: Item[]; reader: BatchReader } | null = { first, reader };
  return new ItemStream(() => {
    let pending = started?.first ?? null;
    const batches = started?.reader ?? again();
    started = null;
    return async () => {
      const taken = pending;
      pending = null;
      if (taken) return taken;
      const rows = await batches.next();
      return rows && represent(rows);
    };
  });
}

/**
 * The six model actions of Django REST Framework's ModelViewSet, for one
 * resource on one site. Each step is a method a subclass may override; what
 * they stand on is in viewsets/: generic.ts (the row, the serializers, the
 * list's query), conditional.ts (tags, 304, If-Match), stored-writes.ts
 * (writes as one compiled statement).
 */
export class ModelViewSet extends StoredWritesViewSet {
  /** Serializers of custom actions' input, by action name. */
  private readonly inputs = new Map<string, Serializer>();

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
    // Kept only after a page (or a whole list of one batch) was read for the same URL, so its query was valid then, and the same tables make it valid now.
    const page = kept && this.keptPages.get(kept.tag);
    if (page) return { status: 200, data: page, headers };
    const query = await this.queryOptions(ctx, request, serializer);
    const shown = (item: Item): Item => selected(item, request);
    if (!paginator) return this.wholeList(ctx, query, async (rows) => (await this.representRows(rows, serializer, request.expand, true)).map(shown), kept);
    const represent = async (rows: readonly (Row | StoredRow)[]): Promise<Item[]> => (await this.representRows(rows, serializer, request.expand)).map(shown);
    const { model, declaration } = this.resource;
    const keptCount = kept?.counts.get(declaration.table);
    const data = await paginator.paginate(ctx, { model, fields: declaration.fields, query, represent, exposure: this.exposure, keptCount });
    if (kept) this.keptPages.keep(kept.tag, data);
    return { status: 200, data, headers };
  }

  /**
   * The whole list (no page asked), refused past the exposure's most rows.
   * One that its first batch holds is answered at once, and kept as a page
   * is; a longer one is written as it is read, never held whole (nor kept).
   */
  private async wholeList(ctx: RequestContext, query: OrderedQuery, represent: (rows: PlainRow[]) => Promise<Item[]>, kept: PageTag | null): Promise<SiteResponse> {
    await this.refuseLongList(ctx, query, kept);
    const headers = kept ? { ETag: kept.tag } : undefined;
    const { model, declaration } = this.resource;
    const reading = (): BatchReader => new BatchReader({ model, fields: declaration.fields, query, keyset: canContinueAfter(declaration.fields, query.order) });
    const reader = reading();
    // The first batch is read and shown before the answer starts: a failure there is still a clean 500.
    const first = await represent((await reader.next()) ?? []);
    if (reader.done) {
      const data = this.site.listBody(ctx, this.exposure, first);
      if (kept) this.keptPages.keep(kept.tag, data);
      return { status: 200, data, headers };
    }
    if (!ctx.renderer.renderStream) {
      // A renderer that needs the list whole: it has at most maxWholeList rows.
      const items = first;
      for (let rows = await reader.next(); rows; rows = await reader.next()) items.push(...(await represent(rows)));
      return { status: 200, data: this.site.listBody(ctx, this.exposure, items), headers };
    }
    return { status: 200, data: this.site.listBody(ctx, this.exposure, readingsOf(first, reader, reading, represent)), streamed: true, headers };
  }

  /**
   * 400 when the whole list holds more rows than the exposure answers at
   * once, naming the parameters of the pages it offers; found before any row
   * is read, from the table's kept count when the list is the whole table.
   */
  private async refuseLongList(ctx: RequestContext, query: OrderedQuery, kept: PageTag | null): Promise<void> {
    const max = this.pagination.maxWholeList;
    const { model, declaration } = this.resource;
    const keptCount = query.where === undefined ? kept?.counts.get(declaration.table) : undefined;
    if (keptCount === undefined ? await holdsMoreThan(model, query, max) : keptCount > max) throw this.tooLong(ctx.t);
  }

  /** The refusal of a whole list too long to answer: the parameters of the pages the list offers, else fewer rows. */
  tooLong(t: Translate): ApiError {
    const max = this.pagination.maxWholeList;
    const parameters = new Set(this.pagination.all.flatMap((paginator) => paginator.schemaParameters(t).map(({ name }) => name)));
    if (parameters.size === 0) return new ApiError('list_too_long_no_pages', { max });
    return new ApiError('list_too_long', { max, parameters: [...parameters].join(', ') });
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

  /**
   * The authenticated user's own row, with the related rows the exposure
   * includes (oldest first), each read in batches: lists that their first
   * batch holds are answered at once, tagged by their bytes; a longer one is
   * written as it is read (wherever the body shows it), tagged by the
   * versions of the tables read, taken before any related row is.
   */
  async current(ctx: RequestContext): Promise<SiteResponse> {
    const row = ctx.user ? await this.resource.model.findByPk(ctx.user.id, { include: this.serializer.includes() }) : null;
    if (!row) throw new ApiError('not_authenticated');
    const kept = await this.includedTag(ctx);
    if (kept && noneMatch(ctx.req.headers['if-none-match'], kept.tag)) return notModified(kept.tag);
    const included: Record<string, Item[] | ItemStream> = {};
    let streamed = false;
    for (const { name, field, resource, serializer } of this.included) {
      const query: OrderedQuery = { where: { [field]: row.get('id') }, order: BY_ID };
      const again = (): BatchReader => new BatchReader({ model: resource.model, fields: resource.declaration.fields, query, keyset: true });
      const represent = (rows: PlainRow[]): Promise<Item[]> => this.representRows(rows, serializer, [], true);
      const reader = again();
      const first = await represent((await reader.next()) ?? []);
      if (reader.done || !ctx.renderer.renderStream) {
        // Whole: all of it read already, or for a renderer that needs it so.
        for (let rows = await reader.next(); rows; rows = await reader.next()) first.push(...(await represent(rows)));
        included[name] = first;
      } else {
        included[name] = readingsOf(first, reader, again, represent);
        streamed = true;
      }
    }
    const [item] = await this.representRows([row], this.serializer, []);
    const data = this.site.currentBody(ctx, this.exposure, item as Item, included);
    if (!streamed) return { status: 200, data };
    return { status: 200, data, streamed, headers: kept ? { ETag: kept.tag } : undefined };
  }

  async create(ctx: RequestContext): Promise<SiteResponse> {
    const data = await this.data(ctx);
    const validate = (): Promise<Record<string, unknown>> => this.serializer.validate(data, { fixed: this.ownerValues(ctx) });
    const values = await validate();
    return checkedAgainOnUniqueViolation(() => this.created(ctx, values), validate, (columns) => this.serializer.uniqueRefusal(columns));
  }

  private async created(ctx: RequestContext, values: Record<string, unknown>): Promise<SiteResponse> {
    const stored = this.performCreate === ModelViewSet.prototype.performCreate ? await this.createStored(ctx, values) : null;
    if (stored) return withTag({ status: 201, data: await this.writtenStored(ctx, stored) }, await this.storedTag(stored));
    const row = await this.performCreate(ctx, values);
    return withTag({ status: 201, data: await this.written(ctx, row) }, await this.writtenTag(row));
  }

  protected async performCreate(ctx: RequestContext, values: Record<string, unknown>): Promise<Row> {
    this.owned(ctx, values);
    return this.writer.create(values, { user: ctx.user });
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
    await this.guarded(ctx, () => checkedAgainOnUniqueViolation(() => this.performUpdate(ctx, row, values), validate, (columns) => this.serializer.uniqueRefusal(columns)));
    return withTag({ status: 200, data: await this.written(ctx, row) }, await this.writtenTag(row));
  }

  /** Whether an update is one compiled UPDATE: no hooks or links, and no subclass reading or writing the row its own way. */
  private updatesStored(): boolean {
    const own = ModelViewSet.prototype;
    return this.writer.oneStatement && this.getObject === own.getObject && this.performUpdate === own.performUpdate;
  }

  protected async performUpdate(ctx: RequestContext, row: Row, values: Record<string, unknown>): Promise<void> {
    await this.writer.update(row, values, { user: ctx.user, expected: this.expectedVersion(ctx) });
  }

  async destroy(ctx: RequestContext): Promise<SiteResponse> {
    await this.checkVersion(ctx, 'destroy');
    const row = await this.getObject(ctx, 'destroy');
    await this.guarded(ctx, () => this.performDestroy(ctx, row));
    return this.site.destroyed;
  }

  protected async performDestroy(ctx: RequestContext, row: Row): Promise<void> {
    await this.writer.destroy(row, { user: ctx.user, expected: this.expectedVersion(ctx) });
  }

  /** The serializer of a custom action's input fields (labels from the resource's catalogue). */
  actionInput(name: string): Serializer | undefined {
    const input = this.resource.declaration.actions?.[name]?.input;
    if (!input) return undefined;
    let found = this.inputs.get(name);
    if (!found) {
      const declaration = { ...this.resource.declaration, fields: { ...this.resource.declaration.fields, ...input } };
      found = new Serializer({ ...this.resource, declaration }, { fields: Object.keys(input), formatTimestamp: (date) => this.site.formatTimestamp(date), numbersAsText: this.site.numbersAsText });
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
    const run = async (): Promise<ActionResult> =>
      declared.run({
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
    // Under If-Match the action runs only once its request has moved the row from the version checked: another request naming it is refused.
    const expected = this.expectedVersion(ctx);
    const result = await this.guarded(ctx, () => (row && expected && namesUpdateTime(expected) ? writer.claimed(row, expected, run) : run()));
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
    if (this.exposure.actions.includes(action) && (await this.mayUse(ctx, route, action))) {
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

  /** As DRF's determine_actions: the action's permissions, and for a row its object permissions, let this user use it. */
  private async mayUse(ctx: RequestContext, route: 'list' | 'detail', action: 'create' | 'update'): Promise<boolean> {
    try {
      checkPermissions(ctx, this.permissions, action);
      if (route === 'detail') await this.getObject(ctx, action);
      return true;
    } catch (error) {
      if (error instanceof ApiError) return false;
      throw error;
    }
  }
}
