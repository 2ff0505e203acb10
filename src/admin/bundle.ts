/**
 * Build step (`npm run build`): bundles the admin's front-end components into
 * dist/adminjs/bundle.js, so that no request and no start ever waits for it.
 * Skipped when the entry and the component sources are unchanged.
 */
import './env.js';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import AdminJS from 'adminjs';
import { componentsBundler, generateUserComponentEntry } from 'adminjs/bundler';
import { ADMIN_BUNDLE_DIR, BUNDLE_FILE } from './env.js';
import { componentLoader } from './components.js';

const COMPONENT_EXTENSIONS = ['', '.jsx', '.tsx', '.js', '.ts'];
const STAMP_FILE = path.join(ADMIN_BUNDLE_DIR, 'bundle.stamp');

function fingerprint(entry: string): string {
  const hash = createHash('sha256').update(entry);
  // The loader keeps component paths without their extension.
  for (const file of Object.values(componentLoader.getComponents()).sort()) {
    const source = COMPONENT_EXTENSIONS.map((extension) => file + extension).find((candidate) => existsSync(candidate));
    hash.update(source ? readFileSync(source) : file);
  }
  hash.update(String(process.env.NODE_ENV === 'production'));
  return hash.digest('hex');
}

async function main(): Promise<void> {
  const admin = new AdminJS({ componentLoader });
  const entry = generateUserComponentEntry(admin, ADMIN_BUNDLE_DIR);
  const stamp = fingerprint(entry);
  if (existsSync(BUNDLE_FILE) && existsSync(STAMP_FILE) && readFileSync(STAMP_FILE, 'utf8') === stamp) return;
  await componentsBundler.createEntry({ content: entry });
  await componentsBundler.build();
  writeFileSync(STAMP_FILE, stamp);
}

await main();
