/**
 * The models of a data file, named as Django's fixtures name them
 * (`app_label.model`): the account model is Django's `auth.user`; every other
 * resource is `<table>.<name>`, its table in the app's place (`Invoice` of
 * table `invoices` is `invoices.invoice`, as a Django app of that name would
 * label it). Also the order a dump writes them in and a load loads
 * them in: the rows a resource refers to before its own.
 */
import type { ResourceRegistry } from '../registry.js';
import { Problem } from './problems.js';
import { isObject } from './records.js';
import { DRF_TOKEN_MODEL, isTokenRecord } from './token-records.js';
import type { BoundResource } from '../types/resource.js';

export const DJANGO_USER_MODEL = 'auth.user';

export function fixtureLabel(resource: BoundResource): string {
  return resource.declaration.userModel ? DJANGO_USER_MODEL : `${resource.declaration.table}.${resource.key}`.toLowerCase();
}

/** The resources a resource's references and many-to-manys name (itself included, when it refers to its own rows). */
export function referencedResources(registry: ResourceRegistry, resource: BoundResource): BoundResource[] {
  return Object.values(resource.declaration.fields).flatMap((field) =>
    field.kind === 'reference' || field.kind === 'manyToMany' ? [registry.get(field.to)] : [],
  );
}

/**
 * Every resource, the account model first, then each after those it refers
 * to, else in declaration order. Where resources refer to each other in a
 * loop (a row to its parent in the same table), a load sets those references last.
 */
export function loadOrder(registry: ResourceRegistry): BoundResource[] {
  const ordered: BoundResource[] = [];
  const entered = new Set<BoundResource>();
  const visit = (resource: BoundResource): void => {
    if (entered.has(resource)) return;
    entered.add(resource);
    for (const target of referencedResources(registry, resource)) visit(target);
    ordered.push(resource);
  };
  visit(registry.users());
  for (const resource of registry.all()) visit(resource);
  return ordered;
}

/** What a record of a data file is: an account, an access token, a row of another resource, or of no model here. */
export type RecordKind = { kind: 'user' } | { kind: 'token' } | { kind: 'rows'; resource: BoundResource } | { kind: 'unknown'; model: string };

/** The application's models by fixture label, and what each record of a file is. */
export class ModelCatalogue {
  private readonly byLabel = new Map<string, BoundResource>();
  readonly order: readonly BoundResource[];

  constructor(private readonly registry: ResourceRegistry) {
    this.order = loadOrder(registry);
    for (const resource of this.order) this.byLabel.set(fixtureLabel(resource), resource);
  }

  kindOf(data: unknown): RecordKind {
    // A record that is no object, or has no model, is a user's (as a plain list holds them) unless it has a token's columns.
    if (!isObject(data) || !Object.hasOwn(data, 'model')) return isTokenRecord(data) ? { kind: 'token' } : { kind: 'user' };
    const model = typeof data.model === 'string' ? data.model.toLowerCase() : String(data.model);
    // Django REST Framework's keys: a load reads them as the token model's rows, which no dump gives back.
    if (model === DRF_TOKEN_MODEL) return { kind: 'token' };
    const resource = this.byLabel.get(model);
    if (!resource) return { kind: 'unknown', model: String(data.model) };
    if (resource.declaration.userModel) return { kind: 'user' };
    if (resource.declaration.tokenModel) return { kind: 'token' };
    return { kind: 'rows', resource };
  }

  /** The problem of a record whose model is none of the application's. */
  unknown(model: string): Problem {
    const models = [...this.byLabel.keys(), ...(this.registry.tokens() ? [DRF_TOKEN_MODEL] : [])].join(', ');
    return new Problem('loaddata.unknown_data_model', { model, models }, { field: 'model' });
  }

  /**
   * The resources `names` choose, in load order: each name a fixture label
   * (`invoices.invoice`, `auth.user`), its first part (`invoices`, `auth`),
   * a table or a resource's name, in any letter case; or the first name
   * that chooses none.
   */
  select(names: readonly string[]): { chosen: BoundResource[] } | { unknown: string } {
    const chosen = new Set<BoundResource>();
    for (const name of names) {
      const wanted = name.toLowerCase();
      const found = this.order.filter((resource) => {
        const label = fixtureLabel(resource);
        return [label, label.split('.')[0], resource.declaration.table.toLowerCase(), resource.key].includes(wanted);
      });
      if (found.length === 0) return { unknown: name };
      for (const resource of found) chosen.add(resource);
    }
    return { chosen: this.order.filter((resource) => chosen.has(resource)) };
  }

  /** Every label, for a message that lists them. */
  labels(): string[] {
    return [...this.byLabel.keys()];
  }
}
