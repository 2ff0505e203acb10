/**
 * Which relations a site shows with a resource's rows, and how: made once per
 * serializer and requested expansion, then reused by every request that asks
 * the same.
 */
import type { Site } from '../contracts.js';
import { Serializer } from '../serializers.js';
import type { ExpandedShape, LoadPlan } from './loader.js';
import type { SiteExposure, BoundResource } from '../types/resource.js';

/** `a.b`, `a.c` and `d` as {a: {b: {}, c: {}}, d: {}}. */
export interface ExpandTree {
  [name: string]: ExpandTree;
}

export function expandTree(paths: readonly string[]): ExpandTree {
  const tree: ExpandTree = {};
  for (const path of paths) {
    let at = tree;
    for (const segment of path.split('.')) at = at[segment] ??= {};
  }
  return tree;
}

/** Whether a site shows this resource's rows at its own URLs (so it may show them nested too). */
export function readableExposure(resource: BoundResource, site: string): SiteExposure | undefined {
  const exposure = resource.declaration.sites?.[site];
  return exposure && exposure.actions.some((action) => action === 'list' || action === 'retrieve') ? exposure : undefined;
}

export class RelationPlans {
  private readonly plans = new WeakMap<Serializer, Map<string, LoadPlan>>();
  /** The serializer a related resource's rows are shown with, nested. */
  private readonly nested = new Map<BoundResource, Serializer>();

  constructor(private readonly site: Site) {}

  /**
   * A top-level expansion of a reference whose rows the site shows nowhere:
   * shown as the referenced row's display name, read by a join with the row.
   */
  joinsByName(resource: BoundResource, name: string): boolean {
    const relation = resource.relations.get(name);
    return relation?.kind === 'reference' && readableExposure(relation.resource, this.site.name) === undefined;
  }

  planFor(serializer: Serializer, expand: readonly string[]): LoadPlan {
    const key = expand.join(',');
    let byExpand = this.plans.get(serializer);
    if (!byExpand) this.plans.set(serializer, (byExpand = new Map()));
    let plan = byExpand.get(key);
    if (!plan) byExpand.set(key, (plan = this.build(serializer, expandTree(expand), true)));
    return plan;
  }

  private build(serializer: Serializer, tree: ExpandTree, top: boolean): LoadPlan {
    const resource = serializer.resource;
    const plan: LoadPlan = { resource, ids: [], counts: [], values: [], expansions: [] };
    for (const name of serializer.fieldNames) {
      const field = resource.declaration.fields[name];
      const relation = resource.relations.get(name);
      if (field?.kind === 'manyToMany' && relation?.kind === 'manyToMany' && !(name in tree)) plan.ids.push({ name, relation });
      if (field?.kind !== 'computed') continue;
      if (field.value) plan.values.push({ name, value: field.value });
      const counted = field.count === undefined ? undefined : resource.relations.get(field.count);
      if (counted && counted.kind !== 'reference') plan.counts.push({ name, relation: counted });
    }
    for (const [name, subtree] of Object.entries(tree)) {
      const relation = resource.relations.get(name);
      if (!relation || (top && this.joinsByName(resource, name))) continue;
      const target = relation.resource;
      const targetSerializer = this.serializerOf(target);
      const shape: ExpandedShape = targetSerializer ? { kind: 'rows', serializer: targetSerializer, plan: this.build(targetSerializer, subtree, false) } : { kind: 'name' };
      plan.expansions.push({ name, relation, shape });
    }
    return plan;
  }

  private serializerOf(resource: BoundResource): Serializer | undefined {
    const exposure = readableExposure(resource, this.site.name);
    if (!exposure) return undefined;
    let serializer = this.nested.get(resource);
    if (!serializer) {
      serializer = new Serializer(resource, {
        fields: exposure.fields,
        formatTimestamp: (date) => this.site.formatTimestamp(date),
        readOnly: true,
      });
      this.nested.set(resource, serializer);
    }
    return serializer;
  }
}
