/**
 * `declarest client`: the application's typed client (src/openapi/client.ts),
 * written to a file for the API users' code, or to standard output.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describedRoutes, siteMounts } from '../app.js';
import type { Language, Translate } from '../i18n.js';
import { clientSource } from '../openapi/client.js';
import { openApiDocument } from '../openapi/document.js';
import type { Services } from '../services.js';
import { CommandFailed } from './accounts.js';
import type { CliIO } from './io.js';

export interface ClientOptions {
  /** The file to write; `-` or none: standard output. */
  out?: string;
  /** The language of the descriptions the types carry as comments. */
  language?: Language;
}

/**
 * English unless asked: the file is committed in the users' code, and should
 * not change with the locale of whoever generated it last.
 */
const DEFAULT_LANGUAGE: Language = 'en';

export async function writeClient(services: Services, io: CliIO, t: Translate, options: ClientOptions): Promise<void> {
  const document = openApiDocument(describedRoutes(siteMounts(services)), options.language ?? DEFAULT_LANGUAGE);
  const source = await clientSource(document);
  const { out } = options;
  if (out === undefined || out === '-') {
    io.stdout.write(source);
    return;
  }
  try {
    // A folder of its own (client/api.ts) is made as it is written, as an output file's folder is by most generators.
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, source);
  } catch (error) {
    throw new CommandFailed([t('client.failed', { file: out, message: (error as Error).message })]);
  }
  io.stdout.write(`${t('client.written', { file: out, count: Object.keys(document.paths).length })}\n`);
}
