import type { FindOptions, IncludeOptions } from 'sequelize';
import { canContinueAfter, readInBatches, type PlainRow } from './batches.js';
import { clock } from './clock.js';
import type { RequestContext } from './context.js';
import { ApiError, fieldLabel, resourceLabel } from './errors.js';
import { PageNumberPagination, type OrderedQuery } from './pagination.js';
import { baseMetadata } from './metadata.js';
import { requestData } from './parsers.js';
import { checkObjectPermissions, isAuthenticated, type Permission, type PermissionAction } from './permissions.js';
import type { BoundResource, Row } from './registry.js';
import type { SiteExposure } from './resource.js';
import { Serializer, type FieldDescription } from './serializers.js';
import { ItemStream, type Item, type Site, type SiteResponse } from './site.js';

const MAX_PK = 2_147_483_647;
/** How much of a path id a not-found message repeats. */
const SHOWN_ID_LENGTH = 64;
const BY_ID: FindOptions['order'] = [['id', 'ASC']];
const WRITE_ACTIONS: ReadonlySet<string> = new Set(['create', 'update', 'partial_update']);

/** A path id that can name a row; anything else is a plain 404, never a database error. */
export function parsePk(raw: string | undefined): number | null {
  if (raw === undefined || !/^\d{1,10}$/.test(raw)) return null;
  const pk = Number(raw);
  return pk >= 1 && pk <= MAX_PK ? pk : null;
}

export interface ViewSetOptions {
  bodyLimit: number;
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
  readonly pagination: PageNumberPagination | null;

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
    const sizes = exposure.pagination ?? site.pageSizes;
    this.pagination = sizes ? new PageNumberPagination(sizes) : null;
  }

  /** The list's query; its order always ends with the primary key, so that pages and batches never overlap. */
  protected queryOptions(_ctx: RequestContext): OrderedQuery {
    const order: OrderedQuery['order'] = (this.exposure.ordering ?? []).map(([name, direction]) => [name, direction]);
    const key = this.resource.model.primaryKeyAttribute;
    if (!order.some(([name]) => name === key)) order.push([key, 'ASC']);
    return { order, include: this.serializer.includes() };
  }

  protected async getObject(ctx: RequestContext, action: PermissionAction, include: IncludeOptions[] = []): Promise<Row> {
    const raw = ctx.req.params.pk;
    const pk = parsePk(typeof raw === 'string' ? raw : undefined);
    const row = pk === null ? null : await this.resource.model.findByPk(pk, { include });
    if (!row) {
      const id = typeof raw === 'string' ? raw.slice(0, SHOWN_ID_LENGTH) : '';
      const name = resourceLabel(ctx.t, this.resource);
      throw new ApiError('record_not_found', { model: this.resource.declaration.name, name, id });
    }
    checkObjectPermissions(ctx, this.permissions, action, row, this.resource);
    return row;
  }

  protected data(ctx: RequestContext): Promise<unknown> {
    return requestData(ctx.req, this.options.bodyLimit);
  }

  /** A written row as the site shows it; referenced rows it shows by name are loaded first. */
  protected async written(ctx: RequestContext, row: Row): Promise<unknown> {
    const include = this.serializer.includes();
    if (include.length > 0) await row.reload({ include });
    return this.site.itemBody(ctx, this.exposure, this.serializer.represent(row));
  }

  async list(ctx: RequestContext): Promise<SiteResponse> {
    const query = this.queryOptions(ctx);
    const represent = (rows: Row[]): Item[] => rows.map((row) => this.serializer.represent(row));
    if (this.pagination) {
      const page = await this.pagination.paginate(ctx, this.resource.model, query);
      return { status: 200, data: this.site.listBody(ctx, this.exposure, represent(page.rows), page.links) };
    }
    if (!ctx.renderer.renderStream) {
      const rows = await this.resource.model.findAll(query);
      return { status: 200, data: this.site.listBody(ctx, this.exposure, represent(rows)) };
    }
    const keyset = canContinueAfter(this.resource.declaration.fields, query.order);
    const batches = readInBatches({ model: this.resource.model, query, keyset });
    const represented = (rows: PlainRow[]): Item[] => rows.map((row) => this.serializer.representPlain(row));
    // The first batch is read and shown before the answer starts: a failure there is still a clean 500.
    const first = await batches.next();
    const firstItems = first.done ? [] : represented(first.value);
    const items = new ItemStream(async function* () {
      yield firstItems;
      for await (const rows of batches) yield represented(rows);
    });
    return { status: 200, data: this.site.listBody(ctx, this.exposure, items), streamed: true };
  }

  async retrieve(ctx: RequestContext): Promise<SiteResponse> {
    const serializer = this.retrieveSerializer;
    const row = await this.getObject(ctx, 'retrieve', serializer.includes());
    return { status: 200, data: this.site.itemBody(ctx, this.exposure, serializer.represent(row)) };
  }

  /** The authenticated user's own row, with the related rows the exposure includes (oldest first). */
  async current(ctx: RequestContext): Promise<SiteResponse> {
    const row = ctx.user ? await this.resource.model.findByPk(ctx.user.id, { include: this.serializer.includes() }) : null;
    if (!row) throw new ApiError('not_authenticated');
    const included: Record<string, Item[]> = {};
    for (const { name, field, resource, serializer } of this.included) {
      const related = await resource.model.findAll({ where: { [field]: row.get('id') }, order: BY_ID });
      included[name] = related.map((relatedRow) => serializer.represent(relatedRow));
    }
    return { status: 200, data: this.site.currentBody(ctx, this.exposure, this.serializer.represent(row), included) };
  }

  async create(ctx: RequestContext): Promise<SiteResponse> {
    const values = await this.serializer.validate(await this.data(ctx));
    const row = await this.performCreate(ctx, values);
    return { status: 201, data: await this.written(ctx, row) };
  }

  protected async performCreate(ctx: RequestContext, values: Record<string, unknown>): Promise<Row> {
    const ownerField = this.resource.declaration.ownerField;
    if (ownerField && ctx.user) values[ownerField] = ctx.user.id;
    return this.resource.model.create(values);
  }

  async update(ctx: RequestContext): Promise<SiteResponse> {
    return this.updateWith(ctx, 'update', false);
  }

  async partialUpdate(ctx: RequestContext): Promise<SiteResponse> {
    return this.updateWith(ctx, 'partial_update', true);
  }

  private async updateWith(ctx: RequestContext, action: PermissionAction, partial: boolean): Promise<SiteResponse> {
    const row = await this.getObject(ctx, action);
    const values = await this.serializer.validate(await this.data(ctx), { partial, instance: row });
    await this.performUpdate(ctx, row, values);
    return { status: 200, data: await this.written(ctx, row) };
  }

  /** Every accepted update refreshes the update time, changed values or not (Django's auto_now). */
  protected async performUpdate(_ctx: RequestContext, row: Row, values: Record<string, unknown>): Promise<void> {
    const updated = this.resource.timestamps.updated;
    row.set(updated ? { ...values, [updated]: clock().now() } : values);
    await row.save();
  }

  async destroy(ctx: RequestContext): Promise<SiteResponse> {
    const row = await this.getObject(ctx, 'destroy');
    await row.destroy();
    return this.site.destroyed;
  }

  /** OPTIONS, as Django REST Framework's SimpleMetadata: the write action is listed only if this user may use it. */
  async metadata(ctx: RequestContext, route: 'list' | 'detail', name: string): Promise<SiteResponse> {
    const actions: Record<string, Record<string, FieldDescription>> = {};
    const method = route === 'list' ? 'POST' : 'PUT';
    const action = route === 'list' ? 'create' : 'update';
    if (this.exposure.actions.includes(action) && (await this.mayUse(ctx, route))) {
      actions[method] = this.serializer.describe((field) => fieldLabel(ctx.t, this.resource.key, field));
    }
    const data = baseMetadata(ctx, name);
    if (Object.keys(actions).length > 0) data.actions = actions;
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
