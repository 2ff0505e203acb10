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

/** The committed description's text; throws when that file is missing or unreadable. */
function acceptedText(file: string, t: Translate): string {
  try {
    const text = readFileSync(file, 'utf8');
    JSON.parse(text);
    return text;
  } catch (error) {
    throw new CommandFailed([t('openapi.unreadable', { file, message: (error as Error).message })]);
  }
}

type Description = Parameters<typeof compareDescriptions>[0];

/** What changed since the committed description; throws when that file is missing or unreadable. */
export function contractChanges(services: Services, t: Translate): ContractChange[] {
  const accepted = JSON.parse(acceptedText(contractFile(services), t)) as Description;
  return compareDescriptions(accepted, JSON.parse(currentDescription(services)) as Description);
}

/**
 * Lines for people comparing the committed description (`accepted`, the
 * file's text) with the current one; a breaking change fails the command
 * (exit 1). Texts that changed break nothing, but are said, so that the
 * committed file does not drift from what the server serves.
 */
export function compareWithAccepted(accepted: string, current: string, file: string, t: Translate): string[] {
  const changes = compareDescriptions(JSON.parse(accepted) as Description, JSON.parse(current) as Description);
  const breaking = changes.filter((change) => change.kind === 'breaking');
  const lines = changes.map(describeChange);
  if (breaking.length > 0) throw new CommandFailed([...lines, t('openapi.breaking', { count: breaking.length, file })]);
  if (changes.length > 0) return [...lines, t('openapi.additive', { count: changes.length })];
  return [accepted === current ? t('openapi.unchanged') : t('openapi.texts_differ', { file })];
}

export function checkContract(services: Services, t: Translate): string[] {
  const file = contractFile(services);
  return compareWithAccepted(acceptedText(file, t), currentDescription(services), file, t);
}

export function acceptContract(services: Services, t: Translate): string {
  const file = contractFile(services);
  writeFileSync(file, currentDescription(services));
  return t('openapi.accepted', { file });
}
