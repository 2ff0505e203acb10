/**
 * A page's entity tag made before the page is read: from the versions
 * `row_counts` keeps of every table the page reads (db/row-counter.ts) and
 * from everything else its bytes depend on (the URL, the media type, the
 * language, who asks, the application's code and declarations). A client
 * that sends it back while none of these changed gets 304 without the page's
 * query, count or rendering.
 *
 * The versions are read first, the page after: a write between the two can
 * only give the page's newer bytes an older tag, which the next request no
 * longer matches, never old bytes a current tag. The same tag may so have
 * gone with two bodies, hence a weak tag (If-None-Match compares weakly).
 */
import { createHash, hash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LRUCache } from 'lru-cache';
import { requestHost } from './context.js';
import type { RequestContext, Site } from './contracts.js';
import { rowCounts } from './db/row-counter.js';
import type { ResourceRegistry } from './registry.js';
import type { LoadPlan } from './relations/loader.js';
import type { Serializer } from './serializers.js';
import type { AnyRelation, BoundResource } from './types/resource.js';

/** The tables of a relation's rows: a many-to-many's join table too. */
function relationTables(relation: AnyRelation): string[] {
  const target = relation.resource.declaration.table;
  return relation.kind === 'manyToMany' ? [relation.join.model.getTableName() as string, target] : [target];
}

/** The rows a serializer reads: its resource's, and those of the references it shows by name (joined). */
function serializerTables(serializer: Serializer, into: Set<string>): void {
  const { resource } = serializer;
  into.add(resource.declaration.table);
  for (const name of serializer.fieldNames) {
    const reference = resource.references.get(name);
    if (reference) into.add(reference.resource.declaration.table);
  }
}

function planTables(plan: LoadPlan, into: Set<string>): void {
  for (const { relation } of [...plan.ids, ...plan.counts]) for (const table of relationTables(relation)) into.add(table);
  for (const { relation, shape } of plan.expansions) {
    for (const table of relationTables(relation)) into.add(table);
    if (shape.kind === 'rows') {
      serializerTables(shape.serializer, into);
      planTables(shape.plan, into);
    }
  }
}

/**
 * Every table a list of `resource` shown by `serializer` with `plan` reads:
 * its own, the references shown by name, what the plan loads, and the join
 * tables of its many-to-many fields (a filter on one reads its join table).
 */
export function tablesRead(resource: BoundResource, serializer: Serializer, plan: LoadPlan): string[] {
  const tables = new Set<string>();
  serializerTables(serializer, tables);
  planTables(plan, tables);
  for (const relation of resource.relations.values()) {
    if (relation.kind === 'manyToMany') tables.add(relation.join.model.getTableName() as string);
  }
  return [...tables].sort();
}

/** The framework's own modules, as this process runs them: a deploy that changes how pages are made changes them. */
function frameworkFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(js|ts)$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

let framework: string | undefined;

function frameworkHash(): string {
  if (framework === undefined) {
    const hash = createHash('sha1');
    const dir = path.dirname(fileURLToPath(import.meta.url));
    // Named from the framework's own folder: the same build deployed in two places tags pages alike.
    for (const file of frameworkFiles(dir)) hash.update(path.relative(dir, file)).update(readFileSync(file));
    framework = hash.digest('base64url');
  }
  return framework;
}

/** Declarations as text, their functions (computed fields, hooks) by their source. */
const declarationText = (registry: ResourceRegistry): string =>
  JSON.stringify(
    registry.all().map((resource) => resource.declaration),
    (_key, value: unknown) => (typeof value === 'function' ? String(value) : value),
  );

const fingerprints = new WeakMap<ResourceRegistry, string>();

/** What the application's code and declarations make of the same rows: changed by any deploy that may change a page. */
export function buildFingerprint(registry: ResourceRegistry): string {
  let found = fingerprints.get(registry);
  if (found === undefined) {
    found = createHash('sha1').update(frameworkHash()).update(declarationText(registry)).digest('base64url');
    fingerprints.set(registry, found);
  }
  return found;
}

const zones = new WeakMap<Site, string>();

/** The site's time zone, as its timestamps show it: the same for every request of a site. */
function timeZoneOf(site: Site): string {
  let zone = zones.get(site);
  if (zone === undefined) {
    zone = site.formatTimestamp(new Date(0));
    zones.set(site, zone);
  }
  return zone;
}

/** Who asks, as far as it changes what a page shows them. */
function asker(ctx: RequestContext): string {
  const { user } = ctx;
  return user ? `${user.id}:${user.isStaff ? 'staff' : ''}:${user.isSuperuser ? 'superuser' : ''}` : '-';
}

/** A page's tag, and the counts of its tables read with their versions (the page's own count need not be read again). */
export interface PageTag {
  tag: string;
  counts: ReadonlyMap<string, number>;
}

/**
 * The weak tag of a page of `tables` as this request asks it, or null when a
 * table keeps no version (a database not yet migrated to versions): the
 * page is then read and tagged by its bytes, as any other answer.
 */
export async function pageTag(ctx: RequestContext, registry: ResourceRegistry, tables: readonly string[]): Promise<PageTag | null> {
  // The request's snapshot: its authentication may have read it already.
  const kept = (await rowCounts(registry.sequelize).at(ctx.req))?.versions(tables) ?? null;
  if (kept === null) return null;
  const { renderer, req } = ctx;
  const parts = [
    buildFingerprint(registry),
    kept.versions,
    ctx.site.name,
    // The URL as sent, not parsed: two spellings of one URL get two tags, one spelling always the same one.
    `${req.protocol}://${requestHost(req)}${req.originalUrl}`,
    `${renderer.format}:${renderer.contentType}`,
    ctx.language,
    asker(ctx),
    // The sites' Vary names it: it may change an answer.
    String(req.headers['x-requested-with'] ?? ''),
    timeZoneOf(ctx.site),
  ];
  return { tag: `W/"${hash('sha1', parts.join('\n'), 'base64url')}"`, counts: kept.counts };
}

/** Most pages kept per list (one resource on one site), and the bytes of their JSON. */
const KEPT_PAGES = 1_000;
const KEPT_PAGE_BYTES = 2 * 1024 * 1024;
/** A page or whole list of more JSON is not kept: it would push out many others, and copying it costs what reading it again does. */
const KEPT_PAGE_MAX_BYTES = KEPT_PAGE_BYTES / 8;

/** Deeply frozen; each object frozen before its members, so that a cycle ends where it began. */
function frozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) frozen(inner);
  }
  return value;
}

/**
 * Pages kept under their tags. A tag names everything a page's bytes depend
 * on, so while a request's tag is the one a page was read under, that page
 * is its answer, as the 304 is for a client holding it: the page's query,
 * its rows' representation and its links are skipped, not just the body.
 * A page read after its tag is as new as the tag or newer (above). Kept
 * pages are shared between the requests that take them, hence frozen.
 */
export class KeptPages {
  private readonly pages = new LRUCache<string, object>({ max: KEPT_PAGES, maxSize: KEPT_PAGE_BYTES, maxEntrySize: KEPT_PAGE_MAX_BYTES });

  get(tag: string): object | undefined {
    return this.pages.get(tag);
  }

  /**
   * Keeps a copy: the page itself goes on to its own request, and may share
   * objects with what made it. A page that cannot be copied (a paginator of
   * an application's that puts a function in it) is not kept, nor one of
   * more than KEPT_PAGE_MAX_BYTES of JSON.
   */
  keep(tag: string, page: unknown): void {
    if (typeof page !== 'object' || page === null) return;
    let copy: object;
    let size: number;
    try {
      size = Math.max(1, JSON.stringify(page).length);
      if (size > KEPT_PAGE_MAX_BYTES) return;
      copy = structuredClone(page);
    } catch {
      return;
    }
    this.pages.set(tag, frozen(copy), { size });
  }
}
