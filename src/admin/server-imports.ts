/**
 * What the built server imports of AdminJS: its server side only. AdminJS's
 * pages are HTML shells whose browser code is prebuilt (AdminJS's own bundles,
 * and ours from `npm run build`) and served as files, yet its package imports
 * everything a browser runs:
 *   - its components bundler (rollup and Babel with their presets), even with
 *     ADMIN_JS_SKIP_BUNDLE, though it then never runs it: about half of the
 *     time the import holds the event loop;
 *   - its front end, which its package entry re-exports: React, its design
 *     system, the rich-text editor and the rest, some 600 modules and about
 *     40 MiB of every serving process.
 * A resolve hook gives the server stand-ins instead: a bundler that refuses to
 * bundle; an empty module for the entry's re-export of the front end (no
 * server code imports a browser name from `adminjs`, and one that did would
 * fail to load, loudly); and, for the server's importers of the design system
 * (the page templates want `combineStyles`, the action decorator a constant),
 * just those two of its files. The tests load AdminJS through Jest, whole.
 */
import { register } from 'node:module';

/** Kept as the source of the hook module: it runs in Node's loader, not in this one. */
const SERVER_ONLY_HOOK = `
const ADMINJS = '/node_modules/adminjs/lib/';
const DESIGN_SYSTEM = '/node_modules/@adminjs/design-system/build/';
const dataModule = (source) => 'data:text/javascript,' + encodeURIComponent(source);
const NO_BUNDLER = dataModule('export default new Proxy({}, { get() { throw new Error("the admin components are bundled by npm run build, not by the server"); } });');
const NO_FRONT_END = dataModule('export {};');
function standIn(url, parent) {
  if (url.endsWith(ADMINJS + 'backend/bundler/components.bundler.js')) return NO_BUNDLER;
  if (url.endsWith(ADMINJS + 'frontend/index.js') && parent.endsWith(ADMINJS + 'index.js')) return NO_FRONT_END;
  if (url.endsWith(DESIGN_SYSTEM + 'index.js') && !parent.includes(DESIGN_SYSTEM)) {
    const build = url.slice(0, -'index.js'.length);
    return dataModule('export { combineStyles } from "' + build + 'utils/combine-styles.js"; export * from "' + build + 'constants.js";');
  }
  return null;
}
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const url = standIn(resolved.url, context.parentURL ?? '');
  return url === null ? resolved : { url, shortCircuit: true };
}`;
let serverOnly = false;
let registered = false;

/** For the built server (not the tests, which load AdminJS through Jest): call before the admin loads. */
export function importAdminServerOnly(): void {
  serverOnly = true;
}

/**
 * Called just before the admin is imported. The hook is registered then, not
 * at the start: Node runs it in a loader thread of its own (about 10 MiB), which
 * a process that never serves the admin (ADMIN_PRELOAD=0) does without.
 */
export function beforeAdminImport(): void {
  if (!serverOnly || registered) return;
  registered = true;
  register(`data:text/javascript,${encodeURIComponent(SERVER_ONLY_HOOK)}`);
}
