/**
 * Conditional requests of a viewset (RFC 9110 §13): the tags of a row and
 * of a list page, 304 for a client whose copy is current, and `If-Match`
 * on the writes. A row's tag is the one a GET of it without `expand` or
 * `fields` answers with (src/conditional.ts makes it).
 */
import type { Transaction } from 'sequelize';
import type { RequestContext, SiteResponse } from '../contracts.js';
import { entityTag, ifMatchHolds, namesAnyVersion } from '../conditional.js';
import { RowChanged, type RowVersion } from '../db/row-version.js';
import { ApiError, resourceLabel } from '../errors.js';
import { KeptPages, pageTag, tablesRead, type PageTag } from '../page-tags.js';
import { parsePk } from '../pk.js';
import { isEmptyPlan, type LoadPlan, type StoredRow } from '../relations/loader.js';
import type { Serializer } from '../serializers.js';
import { GenericViewSet } from './generic.js';
import type { Row } from '../types/rows.js';
import type { PermissionAction } from '../types/resource.js';

/** 304: the client's copy is current; no body. */
export function notModified(tag: string): SiteResponse {
  return { status: 304, headers: { ETag: tag } };
}

/** A write's answer with the written row's tag, for its ETag and the page's forms. */
export function withTag(response: SiteResponse, tag: string | null): SiteResponse {
  return tag ? { ...response, headers: { ...response.headers, ETag: tag }, version: tag } : response;
}

export class ConditionalViewSet extends GenericViewSet {
  /** The tables a list read with each relation plan reads, for its page tags. */
  private readonly tablesOfPlans = new WeakMap<LoadPlan, string[]>();
  /** The tables the `current` action reads: the user's, and those of the related rows it includes. */
  private tablesOfIncluded: string[] | undefined;
  /** Pages answered again while their tags hold (page-tags.ts). */
  protected readonly keptPages = new KeptPages();
  /** The version each request's If-Match was checked against, for its write to name (expectedVersion). */
  private readonly checkedVersions = new WeakMap<RequestContext, RowVersion>();

  /**
   * A list page's tag from the versions of the tables it reads, before it is
   * read (page-tags.ts); null where a table keeps none, and for pages shown
   * as HTML, which carry no validator (they also show who is logged in).
   */
  protected async pageTag(ctx: RequestContext, serializer: Serializer, expand: readonly string[]): Promise<PageTag | null> {
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
   * The tag of the `current` action's answer when it is written as it is
   * read: from the versions of the user's tables and of the related rows it
   * includes, as a page's (null for HTML, and where a table keeps none).
   */
  protected async includedTag(ctx: RequestContext): Promise<PageTag | null> {
    if (ctx.renderer.mediaType === 'text/html') return null;
    this.tablesOfIncluded ??= [
      ...new Set([
        ...tablesRead(this.resource, this.serializer, this.relations.planFor(this.serializer, [])),
        ...this.included.flatMap(({ resource, serializer }) => tablesRead(resource, serializer, this.relations.planFor(serializer, []))),
      ]),
    ].sort();
    return pageTag(ctx, this.options.registry, this.tablesOfIncluded);
  }

  /**
   * `If-Match` on a write: the stored row must still be the version the
   * client read (the ETag of its GET without `expand` or `fields`), else 412
   * and nothing is written. `*` asks only that the row exists.
   */
  protected async checkVersion(ctx: RequestContext, action: PermissionAction, permissions = this.permissions): Promise<void> {
    const header = ctx.req.headers['if-match'];
    if (header === undefined) return;
    const row = await this.getStoredObject(ctx, action, this.retrieveSerializer, permissions);
    const version = await this.checkedVersion(ctx, header, row);
    if (version) this.checkedVersions.set(ctx, version);
  }

  /**
   * 412 unless `header` (If-Match) names the stored row's version; else the
   * version its write must still find: none for `*` (any version); the
   * update time read; or, for a row whose read shows none, the same tag,
   * checked again inside the transaction that holds the row.
   */
  protected async checkedVersion(ctx: RequestContext, header: string, row: StoredRow): Promise<RowVersion | undefined> {
    if (!ifMatchHolds(header, await this.storedTag(row))) throw this.preconditionFailed(ctx);
    if (namesAnyVersion(header)) return undefined;
    const updated = this.resource.timestamps.updated;
    if (updated && row[updated] !== undefined) return { updatedAt: row[updated] };
    const key = row[this.resource.model.primaryKeyAttribute];
    return { stillHolds: (transaction) => this.stillTagged(header, key, transaction) };
  }

  /** Whether the row whose key is `key`, read inside `transaction`, still has the tag `header` (If-Match) names. */
  private async stillTagged(header: string, key: unknown, transaction: Transaction): Promise<boolean> {
    const row = await this.readStored(this.retrieveSerializer, key, transaction);
    return row !== null && ifMatchHolds(header, await this.storedTag(row, transaction));
  }

  /** The version of the row this request's If-Match was checked against, which its write must still find; none without If-Match. */
  protected expectedVersion(ctx: RequestContext): RowVersion | undefined {
    return this.checkedVersions.get(ctx);
  }

  /** Runs a write under the version checked; a row found changed (RowChanged) answers 412 as the check does, or 404 if it is gone. */
  protected async guarded<T>(ctx: RequestContext, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof RowChanged)) throw error;
      throw await this.refusedWrite(ctx);
    }
  }

  /** Why a conditional write found nothing to write: the row changed since it was checked (412), or it is gone (404). */
  protected async refusedWrite(ctx: RequestContext): Promise<ApiError> {
    const raw = ctx.req.params.pk;
    const pk = parsePk(typeof raw === 'string' ? raw : undefined);
    const still = pk === null ? null : await this.readStored(this.retrieveSerializer, pk);
    return still ? this.preconditionFailed(ctx) : this.notFound(ctx, raw);
  }

  /** 412: the row is no longer the version the client read. */
  private preconditionFailed(ctx: RequestContext): ApiError {
    return new ApiError('precondition_failed', { name: resourceLabel(ctx.t, this.resource) });
  }

  /** The tag a GET of the row without `expand` or `fields` answers with, from the row as the retrieve reads it (inside `transaction` when given). */
  protected async storedTag(row: StoredRow, transaction?: Transaction): Promise<string> {
    const serializer = this.retrieveSerializer;
    if (isEmptyPlan(this.relations.planFor(serializer, []))) return entityTag(JSON.stringify(row));
    const [item] = await this.representRows([row], serializer, [], true, transaction);
    return entityTag(JSON.stringify(item));
  }

  /** The written row's new tag, for the answer's ETag and the page's forms; null if it is gone (a hook removed it). */
  protected async writtenTag(row: Row): Promise<string | null> {
    const stored = await this.readStored(this.retrieveSerializer, row.get(this.resource.model.primaryKeyAttribute));
    return stored ? this.storedTag(stored) : null;
  }
}
