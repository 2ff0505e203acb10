import type { FindOptions } from 'sequelize';
import { clock } from './clock.js';
import type { RequestContext } from './context.js';
import { ApiError, fieldLabel } from './errors.js';
import { PageNumberPagination } from './pagination.js';
import { baseMetadata } from './metadata.js';
import { requestData } from './parsers.js';
import { checkObjectPermissions, isAuthenticated, type Permission, type PermissionAction } from './permissions.js';
import type { BoundResource, Row } from './registry.js';
import type { SiteExposure } from './resource.js';
import { Serializer, type FieldDescription } from './serializers.js';
import type { Site, SiteResponse } from './site.js';

const MAX_PK = 2_147_483_647;

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
  readonly permissions: readonly Permission[];
  readonly pagination: PageNumberPagination | null;

  constructor(
    readonly site: Site,
    readonly resource: BoundResource,
    readonly exposure: SiteExposure,
    private readonly options: ViewSetOptions,
  ) {
    this.serializer = new Serializer(resource, {
      fields: exposure.fields,
      rules: exposure.rules,
      formatTimestamp: (date) => site.formatTimestamp(date),
    });
    this.permissions = exposure.permissions ?? resource.declaration.permissions ?? [isAuthenticated];
    const sizes = exposure.pagination ?? site.pageSizes;
    this.pagination = sizes ? new PageNumberPagination(sizes) : null;
  }

  protected queryOptions(_ctx: RequestContext): FindOptions {
    return { order: this.exposure.ordering.map(([name, direction]) => [name, direction]) };
  }

  protected async getObject(ctx: RequestContext, action: PermissionAction): Promise<Row> {
    const raw = ctx.req.params.pk;
    const pk = parsePk(typeof raw === 'string' ? raw : undefined);
    const row = pk === null ? null : await this.resource.model.findByPk(pk);
    if (!row) throw new ApiError('not_found');
    checkObjectPermissions(ctx, this.permissions, action, row, this.resource);
    return row;
  }

  protected data(ctx: RequestContext): Promise<unknown> {
    return requestData(ctx.req, this.options.bodyLimit);
  }

  protected item(ctx: RequestContext, row: Row): unknown {
    return this.site.itemBody(ctx, this.resource, this.serializer.represent(row));
  }

  async list(ctx: RequestContext): Promise<SiteResponse> {
    const query = this.queryOptions(ctx);
    if (this.pagination) {
      const page = await this.pagination.paginate(ctx, this.resource.model, query);
      const items = page.rows.map((row) => this.serializer.represent(row));
      return { status: 200, data: this.site.listBody(ctx, this.resource, items, page.links) };
    }
    const rows = await this.resource.model.findAll(query);
    const items = rows.map((row) => this.serializer.represent(row));
    return { status: 200, data: this.site.listBody(ctx, this.resource, items) };
  }

  async retrieve(ctx: RequestContext): Promise<SiteResponse> {
    return { status: 200, data: this.item(ctx, await this.getObject(ctx, 'retrieve')) };
  }

  async create(ctx: RequestContext): Promise<SiteResponse> {
    const values = await this.serializer.validate(await this.data(ctx));
    const row = await this.performCreate(ctx, values);
    return { status: 201, data: this.item(ctx, row) };
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
    return { status: 200, data: this.item(ctx, row) };
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
    return { status: 204 };
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
