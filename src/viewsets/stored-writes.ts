/**
 * Creates and updates as one compiled statement (src/db/compiled.ts) for
 * resources whose writes need no Sequelize (no hooks, no links): the row is
 * read as the retrieve reads it, and written back RETURNING that same shape,
 * so that the answer and its tag need no second read.
 */
import type { RequestContext, SiteResponse } from '../contracts.js';
import { storedRecord } from '../db/compiled.js';
import { checkedAgainOnUniqueViolation } from '../db/unique-violation.js';
import type { StoredRow } from '../relations/loader.js';
import { ConditionalViewSet, withTag } from './conditional.js';
import type { Item } from '../types/rows.js';
import type { PermissionAction } from '../types/resource.js';

export class StoredWritesViewSet extends ConditionalViewSet {
  /** Whether the retrieve reads every reference the exposure's fields show (writtenStored); known on first use. */
  private retrieveShowsReferences: boolean | undefined;

  /** What a new row's owner field is set to: the user who creates it. */
  protected ownerValues(ctx: RequestContext): Record<string, unknown> {
    const ownerField = this.resource.declaration.ownerField;
    return ownerField && ctx.user ? { [ownerField]: ctx.user.id } : {};
  }

  /** Sets the owner field of a new row to the user who creates it. */
  protected owned(ctx: RequestContext, values: Record<string, unknown>): void {
    Object.assign(values, this.ownerValues(ctx));
  }

  /**
   * A create that is one INSERT, answered with the row as the retrieve reads
   * it (so that its tag needs no second read); null when the write needs
   * Sequelize (hooks, links).
   */
  protected async createStored(ctx: RequestContext, values: Record<string, unknown>): Promise<StoredRow | null> {
    if (!this.writer.oneStatement) return null;
    this.owned(ctx, values);
    const { read, shape } = this.storedReadFor(this.retrieveSerializer);
    return this.writer.createStored(values, { user: ctx.user }, read, shape);
  }

  /** As `written`, for a row the retrieve's read gave: read again only if the answer shows a reference the retrieve does not. */
  protected async writtenStored(ctx: RequestContext, row: StoredRow): Promise<unknown> {
    if (this.retrieveShowsReferences === undefined) {
      const retrieved = new Set(this.retrieveSerializer.includes().map(({ association }) => association));
      this.retrieveShowsReferences = this.serializer.includes().every(({ association }) => retrieved.has(association));
    }
    const shown = this.retrieveShowsReferences ? row : ((await this.readStored(this.serializer, row[this.resource.model.primaryKeyAttribute])) ?? row);
    const [item] = await this.representRows([shown], this.serializer, [], true);
    return this.site.itemBody(ctx, this.exposure, item as Item);
  }

  /**
   * An update as one read and one UPDATE … RETURNING: the row read as the
   * retrieve reads it serves the permissions, If-Match and the validation;
   * the answer and its tag come from the row the UPDATE returns.
   */
  protected async updateStored(ctx: RequestContext, action: PermissionAction, partial: boolean): Promise<SiteResponse> {
    const row = await this.getStoredObject(ctx, action, this.retrieveSerializer);
    const header = ctx.req.headers['if-match'];
    // Written only while the row is still the version checked: a write in between updates nothing.
    const expected = header === undefined ? undefined : await this.checkedVersion(ctx, header, row);
    const data = await this.data(ctx);
    const validate = (): Promise<Record<string, unknown>> => this.serializer.validate(data, { partial, instance: storedRecord(this.resource, row) });
    const values = await validate();
    const { read, shape } = this.storedReadFor(this.retrieveSerializer);
    const updated = await checkedAgainOnUniqueViolation(() => this.writer.updateStored(row, values, { user: ctx.user, expected }, read, shape), validate, (columns) => this.serializer.uniqueRefusal(columns));
    // Gone since it was read: as if it had not been found; changed since it was checked: 412.
    if (!updated) throw await this.refusedWrite(ctx);
    return withTag({ status: 200, data: await this.writtenStored(ctx, updated) }, await this.storedTag(updated));
  }
}
