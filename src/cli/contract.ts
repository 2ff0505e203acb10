/**
 * The guard on the public API contract: the description an application
 * serves, committed as `openapi.json` at its root, and compared with the one
 * its declarations make now (`manage openapi --check`); an intended change is
 * accepted by writing the file again (`manage openapi --accept`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describedRoutes, siteMounts } from '../app.js';
import type { Translate } from '../i18n.js';
import { compareDescriptions, describeChange, type ContractChange } from '../openapi/compatibility.js';
import { openApiDocument } from '../openapi/document.js';
import type { Services } from '../services.js';
import { CommandFailed } from './accounts.js';

/** The committed description is in English: its texts are not part of the contract, only stable. */
const CONTRACT_LANGUAGE = 'en';

export function contractFile(services: Services): string {
  return path.join(services.application.root, 'openapi.json');
}

/** The description the declarations make now, as the file holds it. */
export function currentDescription(services: Services): string {
  return `${JSON.stringify(openApiDocument(describedRoutes(siteMounts(services)), CONTRACT_LANGUAGE), null, 2)}\n`;
}

/** What changed since the committed description; throws when that file is missing or unreadable. */
export function contractChanges(services: Services, t: Translate): ContractChange[] {
  const file = contractFile(services);
  let accepted: unknown;
  try {
    accepted = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CommandFailed([t('openapi.unreadable', { file, message: (error as Error).message })]);
  }
  return compareDescriptions(accepted as Parameters<typeof compareDescriptions>[0], JSON.parse(currentDescription(services)) as Parameters<typeof compareDescriptions>[1]);
}

/** Lines for people; a breaking change fails the command (exit 1). */
export function checkContract(services: Services, t: Translate): string[] {
  const changes = contractChanges(services, t);
  const breaking = changes.filter((change) => change.kind === 'breaking');
  const lines = changes.map(describeChange);
  if (breaking.length > 0) throw new CommandFailed([...lines, t('openapi.breaking', { count: breaking.length, file: contractFile(services) })]);
  return [...lines, changes.length > 0 ? t('openapi.additive', { count: changes.length }) : t('openapi.unchanged')];
}

export function acceptContract(services: Services, t: Translate): string {
  const file = contractFile(services);
  writeFileSync(file, currentDescription(services));
  return t('openapi.accepted', { file });
}
