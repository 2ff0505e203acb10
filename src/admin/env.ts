/**
 * AdminJS reads these when it is imported, so every admin module imports this
 * one first. The components bundle is made by `npm run build` (bundle.ts) and
 * never on a request or at start; Express 5 refuses to send files from a
 * folder whose name starts with a dot, hence not AdminJS's default `.adminjs`.
 */
import path from 'node:path';
import { projectRoot } from '../paths.js';

export const ADMIN_BUNDLE_DIR = path.join(projectRoot, 'dist', 'adminjs');
/** The bundle of our own components, which AdminJS's pages load as components.bundle.js. */
export const BUNDLE_FILE = path.join(ADMIN_BUNDLE_DIR, 'bundle.js');

process.env.ADMIN_JS_TMP_DIR = ADMIN_BUNDLE_DIR;
process.env.ADMIN_JS_SKIP_BUNDLE = 'true';
