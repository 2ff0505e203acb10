/**
 * Whether an API description still keeps its promises: what changed from the
 * accepted (committed) description to the current one, as a client sees it.
 * A change is `breaking` when a client written against the accepted
 * description may now fail; `additive` when it only gains something.
 *
 * The rule underneath (as oasdiff and openapi-diff have it): a request may now
 * be refused when the server accepts *less* than before (a request schema
 * narrowed); a response may now surprise a client when the server may send
 * *more* than before (a response schema widened) — with one exception, the
 * tolerant reader: a new response field is additive, clients skip fields they
 * do not know. Hence, per direction:
 *
 * | change                                      | request body, parameter  | response body, header |
 * |---------------------------------------------|--------------------------|-----------------------|
 * | field removed                               | breaking (no longer read)| breaking              |
 * | field added                                 | additive; breaking if required | additive        |
 * | field becomes required / optional           | breaking / additive      | additive / breaking   |
 * | a type added (e.g. `null`) / removed        | additive / breaking      | breaking / additive   |
 * | an `enum` value (or `const`) added / removed| additive / breaking      | breaking / additive   |
 * | a limit tighter / looser (`maxLength`, …)   | breaking / additive      | additive / breaking   |
 * | a `pattern` or `format` added / removed     | breaking / additive      | additive / breaking   |
 * | a `pattern` or `format` changed             | breaking                 | breaking              |
 * | an alternative (`anyOf`/`oneOf`) added      | additive                 | breaking              |
 * | a media type added / removed                | additive / breaking      | additive / breaking   |
 *
 * Paths, methods, response statuses and response headers: removed is
 * breaking, added is additive; so is a way to authenticate (a `security`
 * requirement, none at all counting as anonymous access).
 *
 * Decisions beyond that table:
 * - A removed parameter is breaking, query parameters included: the server
 *   either refuses it (the Laravel-style site answers `invalid_filter_query`
 *   to a filter it does not know) or ignores it, and then a filtered list
 *   silently comes back unfiltered.
 * - Alternatives (`anyOf`/`oneOf`) are matched, not compared by position:
 *   accepted and current alternatives are paired one to one so that the
 *   pairs differ least (fewest breaking changes, then fewest changes, then
 *   the same place), and each pair's differences are reported; a current
 *   alternative left unpaired is a new one. With more accepted alternatives
 *   than current ones, each is read as its nearest. `allOf` parts are
 *   compared by position.
 * - A change under some of a body's media types only names them in `where`
 *   (`GET /items/ → 200 (application/json)`); one under all of them does not.
 * - Path templates match whatever their parameters are called
 *   (`/items/{pk}` is `/items/{id}`); path parameters match by place.
 * - Texts are not the contract: `summary`, `description`, `example(s)`,
 *   `operationId`, the operation groups, `title`, `default`, `readOnly`, `deprecated` and any
 *   other keyword not named above are ignored.
 * - `$ref`s of schemas into the same document are followed. A path item that
 *   is a `$ref` (a path's other spelling) has no methods of its own: its
 *   changes are those of the path it names, reported there.
 */

/** An OpenAPI document as far as the comparison reads it; everything else stays unknown. */
export interface OpenApiDescription {
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, unknown>;
  security?: unknown;
}

export interface ContractChange {
  kind: 'breaking' | 'additive';
  /** The operation and, for a response, its status: `GET /items/ → 200`. */
  where: string;
  what: string;
}

type Kind = ContractChange['kind'];
type Direction = 'request' | 'response';
type Json = Record<string, unknown>;

/** A change found inside one operation, before it is placed. */
interface Finding {
  kind: Kind;
  what: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Bounds a value may not pass: `upper` ones narrow when they fall, the others when they rise. */
const LIMITS: readonly { keyword: string; upper: boolean }[] = [
  { keyword: 'maxLength', upper: true },
  { keyword: 'maximum', upper: true },
  { keyword: 'exclusiveMaximum', upper: true },
  { keyword: 'maxItems', upper: true },
  { keyword: 'maxProperties', upper: true },
  { keyword: 'minLength', upper: false },
  { keyword: 'minimum', upper: false },
  { keyword: 'exclusiveMinimum', upper: false },
  { keyword: 'minItems', upper: false },
  { keyword: 'minProperties', upper: false },
];

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const record = (value: unknown): Json => (isRecord(value) ? value : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const strings = (value: unknown): string[] => list(value).filter((item): item is string => typeof item === 'string');
/** Orders scores (lists of counts) as words in a dictionary. */
const lessThan = (left: number[], right: number[]): boolean => {
  const at = left.findIndex((value, index) => value !== right[index]);
  return at >= 0 && (left[at] ?? 0) < (right[at] ?? 0);
};
const code = (value: unknown): string => `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;

/** Breaking when the change narrows a request or widens a response. */
const widening = (direction: Direction): Kind => (direction === 'response' ? 'breaking' : 'additive');
const narrowing = (direction: Direction): Kind => (direction === 'request' ? 'breaking' : 'additive');

/** Follows a `#/components/...` reference inside its own document; anything else is left as it is. */
function resolver(document: OpenApiDescription): (value: unknown) => Json {
  return (value) => {
    let schema = record(value);
    for (let hops = 0; typeof schema.$ref === 'string' && schema.$ref.startsWith('#/') && hops < 32; hops += 1) {
      let target: unknown = document;
      for (const token of schema.$ref.slice(2).split('/')) target = record(target)[token.replace(/~1/g, '/').replace(/~0/g, '~')];
      schema = record(target);
    }
    return schema;
  };
}

/** How a compared value is named in a change: the body itself, or one of its fields. */
interface Subject {
  root: string;
  field: (path: string) => string;
}

const bodySubject = (direction: Direction): Subject => ({
  root: `${direction} body`,
  field: (path) => `${direction} field \`${path}\``,
});

const parameterSubject = (name: string): Subject => ({ root: name, field: (path) => `${name} at \`${path}\`` });

/** Compares two schemas of one direction, for one pair of documents. */
class SchemaComparison {
  private readonly resolveAccepted: (value: unknown) => Json;
  private readonly resolveCurrent: (value: unknown) => Json;

  constructor(accepted: OpenApiDescription, current: OpenApiDescription) {
    this.resolveAccepted = resolver(accepted);
    this.resolveCurrent = resolver(current);
  }

  compare(accepted: unknown, current: unknown, direction: Direction, subject: Subject): Finding[] {
    const findings: Finding[] = [];
    this.walk(this.resolveAccepted(accepted), this.resolveCurrent(current), direction, subject, '', findings, 0);
    return findings;
  }

  private walk(a: Json, c: Json, direction: Direction, subject: Subject, path: string, out: Finding[], depth: number): void {
    // A schema nested this deep is a recursive one met through $refs: what lies below was compared above.
    if (depth > 24) return;
    const name = path === '' ? subject.root : subject.field(path);
    const aAlternatives = a.anyOf ?? a.oneOf;
    const cAlternatives = c.anyOf ?? c.oneOf;
    if (aAlternatives !== undefined || cAlternatives !== undefined) {
      this.alternatives(
        aAlternatives === undefined ? [a] : list(aAlternatives).map(this.resolveAccepted),
        cAlternatives === undefined ? [c] : list(cAlternatives).map(this.resolveCurrent),
        direction,
        subject,
        path,
        out,
        depth,
      );
      return;
    }
    this.types(a, c, direction, name, out);
    this.values(a, c, direction, name, out);
    this.limits(a, c, direction, name, out);
    this.patterns(a, c, direction, name, out);
    this.allOf(a, c, direction, subject, path, out, depth);
    if (a.items !== undefined && c.items !== undefined) {
      this.walk(this.resolveAccepted(a.items), this.resolveCurrent(c.items), direction, subject, `${path}[]`, out, depth + 1);
    }
    this.properties(a, c, direction, subject, path, out, depth);
    if (direction === 'request' && a.additionalProperties !== false && c.additionalProperties === false && isRecord(a.properties)) {
      out.push({ kind: 'breaking', what: `${name} no longer accepts fields it does not name` });
    }
  }

  private types(a: Json, c: Json, direction: Direction, name: string, out: Finding[]): void {
    if (a.type === undefined || c.type === undefined) return;
    const aTypes = typeof a.type === 'string' ? [a.type] : strings(a.type);
    const cTypes = typeof c.type === 'string' ? [c.type] : strings(c.type);
    // An integer is a number: `integer` → `number` widens, `number` → `integer` narrows.
    const within = (type: string, types: string[]): boolean => types.includes(type) || (type === 'integer' && types.includes('number'));
    const added = cTypes.filter((type) => !within(type, aTypes));
    const removed = aTypes.filter((type) => !within(type, cTypes));
    if (added.length > 0) {
      out.push({
        kind: widening(direction),
        what: direction === 'response' ? `${name} may now be ${added.join(' or ')}` : `${name} now also accepts ${added.join(' or ')}`,
      });
    }
    if (removed.length > 0) {
      out.push({
        kind: narrowing(direction),
        what: direction === 'response' ? `${name} is no longer ${removed.join(' or ')}` : `${name} no longer accepts ${removed.join(' or ')}`,
      });
    }
  }

  /** `enum` and `const`: the values allowed, when the schema lists them. */
  private values(a: Json, c: Json, direction: Direction, name: string, out: Finding[]): void {
    const allowed = (schema: Json): unknown[] | undefined =>
      'const' in schema ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : undefined;
    const aValues = allowed(a);
    const cValues = allowed(c);
    const key = (value: unknown): string => JSON.stringify(value);
    if (cValues === undefined) {
      if (aValues !== undefined) out.push({ kind: widening(direction), what: `${name} is no longer limited to listed values` });
      return;
    }
    if (aValues === undefined) {
      out.push({ kind: narrowing(direction), what: `${name} is now limited to ${cValues.map(code).join(', ')}` });
      return;
    }
    const aKeys = new Set(aValues.map(key));
    const cKeys = new Set(cValues.map(key));
    for (const value of cValues.filter((item) => !aKeys.has(key(item)))) {
      out.push({ kind: widening(direction), what: `${name} has a new value ${code(value)}` });
    }
    for (const value of aValues.filter((item) => !cKeys.has(key(item)))) {
      out.push({ kind: narrowing(direction), what: `${name} no longer has the value ${code(value)}` });
    }
  }

  private limits(a: Json, c: Json, direction: Direction, name: string, out: Finding[]): void {
    for (const { keyword, upper } of LIMITS) {
      const before = typeof a[keyword] === 'number' ? a[keyword] : undefined;
      const after = typeof c[keyword] === 'number' ? c[keyword] : undefined;
      if (before === after) continue;
      let narrower: boolean;
      let what: string;
      if (before === undefined) {
        narrower = true;
        what = `\`${keyword}\` ${after} added to ${name}`;
      } else if (after === undefined) {
        narrower = false;
        what = `\`${keyword}\` of ${name} removed (was ${before})`;
      } else {
        narrower = upper ? after < before : after > before;
        what = `\`${keyword}\` of ${name} ${after < before ? 'lowered' : 'raised'} from ${before} to ${after}`;
      }
      out.push({ kind: narrower ? narrowing(direction) : widening(direction), what });
    }
  }

  /** A pattern or a format cannot be compared for width: a change of either is breaking both ways. */
  private patterns(a: Json, c: Json, direction: Direction, name: string, out: Finding[]): void {
    for (const keyword of ['pattern', 'format']) {
      const before = a[keyword];
      const after = c[keyword];
      if (before === after) continue;
      if (before === undefined) out.push({ kind: narrowing(direction), what: `\`${keyword}\` ${code(after)} added to ${name}` });
      else if (after === undefined) out.push({ kind: widening(direction), what: `\`${keyword}\` of ${name} removed (was ${code(before)})` });
      else out.push({ kind: 'breaking', what: `\`${keyword}\` of ${name} changed from ${code(before)} to ${code(after)}` });
    }
  }

  private properties(a: Json, c: Json, direction: Direction, subject: Subject, path: string, out: Finding[], depth: number): void {
    if (a.properties === undefined && c.properties === undefined) return;
    const aProperties = record(a.properties);
    const cProperties = record(c.properties);
    const aRequired = new Set(strings(a.required));
    const cRequired = new Set(strings(c.required));
    const join = (key: string): string => (path === '' ? key : `${path}.${key}`);
    for (const [key, schema] of Object.entries(aProperties)) {
      const field = subject.field(join(key));
      if (!(key in cProperties)) {
        out.push({ kind: 'breaking', what: direction === 'response' ? `${field} removed` : `${field} removed (no longer read)` });
        continue;
      }
      if (aRequired.has(key) && !cRequired.has(key)) {
        out.push({ kind: widening(direction), what: direction === 'response' ? `${field} may now be absent` : `${field} no longer required` });
      }
      if (!aRequired.has(key) && cRequired.has(key)) {
        out.push({ kind: narrowing(direction), what: direction === 'response' ? `${field} now always present` : `${field} now required` });
      }
      this.walk(this.resolveAccepted(schema), this.resolveCurrent(cProperties[key]), direction, subject, join(key), out, depth + 1);
    }
    for (const key of Object.keys(cProperties).filter((key) => !(key in aProperties))) {
      const field = subject.field(join(key));
      if (direction === 'request' && cRequired.has(key)) out.push({ kind: 'breaking', what: `new required ${field}` });
      else out.push({ kind: 'additive', what: direction === 'request' ? `new optional ${field}` : `new ${field}` });
    }
  }

  private allOf(a: Json, c: Json, direction: Direction, subject: Subject, path: string, out: Finding[], depth: number): void {
    const aParts = list(a.allOf).map(this.resolveAccepted);
    const cParts = list(c.allOf).map(this.resolveCurrent);
    const name = path === '' ? subject.root : subject.field(path);
    for (let index = 0; index < Math.max(aParts.length, cParts.length); index += 1) {
      const before = aParts[index];
      const after = cParts[index];
      if (before !== undefined && after !== undefined) this.walk(before, after, direction, subject, path, out, depth + 1);
      else if (after !== undefined) out.push({ kind: narrowing(direction), what: `${name} must now also match a new \`allOf\` part` });
      else out.push({ kind: widening(direction), what: `${name} lost an \`allOf\` part` });
    }
  }

  /** Each accepted alternative against the current one it differs least from; see the module's opening. */
  private alternatives(
    aAlternatives: Json[],
    cAlternatives: Json[],
    direction: Direction,
    subject: Subject,
    path: string,
    out: Finding[],
    depth: number,
  ): void {
    const pairs = aAlternatives.map((before, index) =>
      cAlternatives.map((after, at) => {
        const findings: Finding[] = [];
        this.walk(before, after, direction, subject, path, findings, depth + 1);
        const score = [findings.filter((finding) => finding.kind === 'breaking').length, findings.length, at === index ? 0 : 1];
        return { at, findings, score };
      }),
    );
    const chosen = new Set<number>();
    for (const pair of matching(pairs.map((row) => row.map((cell) => cell.score)), cAlternatives.length).map((at, index) => pairs[index]?.[at])) {
      if (pair === undefined) continue;
      chosen.add(pair.at);
      out.push(...pair.findings);
    }
    const name = path === '' ? subject.root : subject.field(path);
    cAlternatives.forEach((_, at) => {
      if (chosen.has(at)) return;
      const shape = `a new shape (\`anyOf\` #${at + 1})`;
      const what = direction === 'response' ? `${name} may now take ${shape}` : `${name} now also accepts ${shape}`;
      out.push({ kind: widening(direction), what });
    });
  }
}

/**
 * Which current alternative each accepted one is read as: one to one when
 * there are enough (the pairing with the least total score, so two alike
 * alternatives are not both read as the same one), else each its nearest.
 */
function matching(scores: number[][][], width: number): number[] {
  const nearest = (row: number[][], taken: Set<number>): number => {
    let best = -1;
    row.forEach((score, at) => {
      if (!taken.has(at) && (best < 0 || lessThan(score, row[best] ?? []))) best = at;
    });
    return best;
  };
  // Past a few alternatives, trying every pairing costs more than it is worth: each takes its nearest free one.
  if (scores.length > width || scores.length > 6) {
    const taken = new Set<number>();
    return scores.map((row) => {
      const at = nearest(row, scores.length > width ? new Set() : taken);
      taken.add(at);
      return at;
    });
  }
  let best: { total: number[]; pairing: number[] } | undefined;
  const visit = (index: number, pairing: number[], total: number[]): void => {
    if (best !== undefined && lessThan(best.total, total)) return;
    const row = scores[index];
    if (row === undefined) {
      if (best === undefined || lessThan(total, best.total)) best = { total, pairing };
      return;
    }
    row.forEach((score, at) => {
      if (!pairing.includes(at)) visit(index + 1, [...pairing, at], total.map((value, i) => value + (score[i] ?? 0)));
    });
  };
  visit(0, [], [0, 0, 0]);
  return best?.pairing ?? [];
}

/** `/items/{pk}` and `/items/{id}` are one URL to a client. */
const template = (path: string): string => path.replace(/\{[^}]*\}/g, '{}');

interface Parameter {
  key: string;
  label: string;
  required: boolean;
  schema: unknown;
}

/** An operation's parameters with its path's; path parameters keyed by their place in the template. */
function parametersOf(path: string, pathItem: Json, operation: Json): Map<string, Parameter> {
  const places = [...path.matchAll(/\{([^}]*)\}/g)].map((match) => match[1]);
  const parameters = new Map<string, Parameter>();
  for (const value of [...list(pathItem.parameters), ...list(operation.parameters)]) {
    const parameter = record(value);
    const name = String(parameter.name);
    const where = String(parameter.in);
    const key = where === 'path' ? `path#${places.indexOf(name)}` : `${where}:${name}`;
    parameters.set(key, { key, label: `${where} parameter \`${name}\``, required: parameter.required === true, schema: parameter.schema });
  }
  return parameters;
}

/** Ways to authenticate an operation accepts, each a sorted list of scheme names; `anonymous` for none. */
function securityOf(document: OpenApiDescription, operation: Json): Set<string> {
  const requirements = operation.security ?? document.security ?? [];
  const ways = list(requirements).map((requirement) => Object.keys(record(requirement)).sort().join(' + ') || 'anonymous');
  return new Set(ways.length > 0 ? ways : ['anonymous']);
}

/**
 * Compares one schema under each media type both sides have, and names the
 * media type only when a change is not under all of them (our bodies repeat
 * one schema under JSON, a form and multipart).
 */
function acrossMediaTypes(
  comparison: SchemaComparison,
  accepted: Json,
  current: Json,
  direction: Direction,
  where: string,
  out: ContractChange[],
): void {
  const mediaTypes = Object.keys(accepted).filter((mediaType) => mediaType in current);
  const found = new Map<string, { finding: Finding; mediaTypes: string[] }>();
  for (const mediaType of mediaTypes) {
    for (const finding of comparison.compare(record(accepted[mediaType]).schema, record(current[mediaType]).schema, direction, bodySubject(direction))) {
      const key = `${finding.kind} ${finding.what}`;
      const entry = found.get(key) ?? { finding, mediaTypes: [] };
      if (!entry.mediaTypes.includes(mediaType)) entry.mediaTypes.push(mediaType);
      found.set(key, entry);
    }
  }
  for (const { finding, mediaTypes: under } of found.values()) {
    const place = under.length === mediaTypes.length ? where : `${where} (${under.join(', ')})`;
    out.push({ kind: finding.kind, where: place, what: finding.what });
  }
}

function compareOperations(
  comparison: SchemaComparison,
  documents: { accepted: OpenApiDescription; current: OpenApiDescription },
  paths: { accepted: string; current: string },
  items: { accepted: Json; current: Json },
  method: string,
  out: ContractChange[],
): void {
  const a = record(items.accepted[method]);
  const c = record(items.current[method]);
  const where = `${method.toUpperCase()} ${paths.current}`;
  const push = (kind: Kind, what: string, place = where): void => {
    out.push({ kind, where: place, what });
  };

  const aSecurity = securityOf(documents.accepted, a);
  const cSecurity = securityOf(documents.current, c);
  for (const way of aSecurity) {
    if (!cSecurity.has(way)) push('breaking', way === 'anonymous' ? 'no longer open without credentials' : `authentication by ${way} no longer accepted`);
  }
  for (const way of cSecurity) {
    if (!aSecurity.has(way)) push('additive', way === 'anonymous' ? 'now open without credentials' : `authentication by ${way} now accepted`);
  }

  const aParameters = parametersOf(paths.accepted, items.accepted, a);
  const cParameters = parametersOf(paths.current, items.current, c);
  for (const [key, before] of aParameters) {
    const after = cParameters.get(key);
    if (after === undefined) {
      push('breaking', `${before.label} removed`);
      continue;
    }
    if (!before.required && after.required) push('breaking', `${after.label} now required`);
    if (before.required && !after.required) push('additive', `${after.label} no longer required`);
    for (const finding of comparison.compare(before.schema, after.schema, 'request', parameterSubject(after.label))) push(finding.kind, finding.what);
  }
  for (const [key, after] of cParameters) {
    if (!aParameters.has(key)) push(after.required ? 'breaking' : 'additive', `new ${after.required ? 'required' : 'optional'} ${after.label}`);
  }

  compareRequestBodies(comparison, record(a.requestBody), record(c.requestBody), where, out);

  const aResponses = record(a.responses);
  const cResponses = record(c.responses);
  for (const [status, response] of Object.entries(aResponses)) {
    if (!(status in cResponses)) {
      push('breaking', `response ${status} removed`);
      continue;
    }
    compareResponses(comparison, record(response), record(cResponses[status]), `${where} → ${status}`, out);
  }
  for (const status of Object.keys(cResponses)) if (!(status in aResponses)) push('additive', `new response ${status}`);
}

function compareRequestBodies(comparison: SchemaComparison, a: Json, c: Json, where: string, out: ContractChange[]): void {
  const push = (kind: Kind, what: string): void => {
    out.push({ kind, where, what });
  };
  const aHas = a.content !== undefined;
  const cHas = c.content !== undefined;
  if (!aHas && !cHas) return;
  if (!cHas) return push('breaking', 'request body no longer read');
  if (!aHas) return push(c.required === true ? 'breaking' : 'additive', `${c.required === true ? 'required' : 'optional'} request body added`);
  if (a.required !== true && c.required === true) push('breaking', 'request body now required');
  if (a.required === true && c.required !== true) push('additive', 'request body no longer required');
  const aContent = record(a.content);
  const cContent = record(c.content);
  for (const mediaType of Object.keys(aContent)) if (!(mediaType in cContent)) push('breaking', `request media type \`${mediaType}\` no longer accepted`);
  for (const mediaType of Object.keys(cContent)) if (!(mediaType in aContent)) push('additive', `request media type \`${mediaType}\` now accepted`);
  acrossMediaTypes(comparison, aContent, cContent, 'request', `${where} request body`, out);
}

function compareResponses(comparison: SchemaComparison, a: Json, c: Json, where: string, out: ContractChange[]): void {
  const push = (kind: Kind, what: string): void => {
    out.push({ kind, where, what });
  };
  const aHeaders = record(a.headers);
  const cHeaders = record(c.headers);
  for (const [name, header] of Object.entries(aHeaders)) {
    if (!(name in cHeaders)) {
      push('breaking', `response header \`${name}\` removed`);
      continue;
    }
    const subject = parameterSubject(`response header \`${name}\``);
    for (const finding of comparison.compare(record(header).schema, record(cHeaders[name]).schema, 'response', subject)) push(finding.kind, finding.what);
  }
  for (const name of Object.keys(cHeaders)) if (!(name in aHeaders)) push('additive', `new response header \`${name}\``);
  const aContent = record(a.content);
  const cContent = record(c.content);
  for (const mediaType of Object.keys(aContent)) if (!(mediaType in cContent)) push('breaking', `response media type \`${mediaType}\` removed`);
  for (const mediaType of Object.keys(cContent)) if (!(mediaType in aContent)) push('additive', `new response media type \`${mediaType}\``);
  acrossMediaTypes(comparison, aContent, cContent, 'response', where, out);
}

/** What changed from `accepted` (the committed description) to `current` (the generated one), as a client of the API sees it. */
export function compareDescriptions(accepted: OpenApiDescription, current: OpenApiDescription): ContractChange[] {
  const comparison = new SchemaComparison(accepted, current);
  const out: ContractChange[] = [];
  const aPaths = record(accepted.paths);
  const cPaths = record(current.paths);
  const cByTemplate = new Map(Object.keys(cPaths).map((path) => [template(path), path]));
  const aTemplates = new Set(Object.keys(aPaths).map(template));
  for (const [aPath, aItem] of Object.entries(aPaths)) {
    const cPath = cByTemplate.get(template(aPath));
    if (cPath === undefined) {
      out.push({ kind: 'breaking', where: aPath, what: 'path removed' });
      continue;
    }
    const items = { accepted: record(aItem), current: record(cPaths[cPath]) };
    for (const method of METHODS) {
      const aHas = method in items.accepted;
      const cHas = method in items.current;
      if (aHas && !cHas) out.push({ kind: 'breaking', where: `${method.toUpperCase()} ${aPath}`, what: 'method removed' });
      else if (!aHas && cHas) out.push({ kind: 'additive', where: `${method.toUpperCase()} ${cPath}`, what: 'new method' });
      else if (aHas && cHas) compareOperations(comparison, { accepted, current }, { accepted: aPath, current: cPath }, items, method, out);
    }
  }
  for (const cPath of Object.keys(cPaths)) if (!aTemplates.has(template(cPath))) out.push({ kind: 'additive', where: cPath, what: 'new path' });
  return out;
}

/** One line for people: `breaking: GET /items/ → 200: response field \`title\` removed`. */
export function describeChange(change: ContractChange): string {
  return `${change.kind}: ${change.where}: ${change.what}`;
}
