import { pathToFileURL } from 'node:url';
import { Command, CommanderError, Option } from 'commander';
import { describedRoutes, siteMounts } from '../app.js';
import { openApiDocument } from '../openapi/document.js';
import { ConfigError, describeConfigError, loadConfig, loadDotEnv } from '../config.js';
import { migrateTo, migrationPlan, UnknownMigration, type MigrationPlan, type MigrationTarget } from '../db/migrator.js';
import { LANGUAGES, translator, type Language, type Translate } from '../i18n.js';
import { createLogger } from '../logger.js';
import { applicationAt, packageName } from '../paths.js';
import { ApplicationError, createServices, type Services } from '../services.js';
import { changePassword, CommandFailed, createAccount, type AccountOptions } from './accounts.js';
import { cliLanguage, processIO, type CliIO } from './io.js';
import { acceptContract, checkContract } from './contract.js';
import { writeClient, type ClientOptions } from './client.js';
import { FAIL_LEVELS, runChecks, type CheckOptions } from './check.js';
import { makeMigrations, type MakeMigrationsOptions } from './migrations.js';
import { dumpData, loadData } from './userdata.js';
import { seed } from '../db/seeder.js';
import { seedFailure, seedLines } from './seeding.js';
import { startProject, startResource } from './scaffold.js';

function accountOptions(command: Command): Command {
  return command
    .option('--username <username>', 'login name')
    .option('--email <email>', 'email address (unique, case-insensitive)')
    .option('--name <name>', 'display name (default: the username)')
    .addOption(new Option('--password <password>', 'password (visible in the process list: prefer --password-stdin)').conflicts('passwordStdin'))
    .option('--password-stdin', 'read the password from standard input');
}

/** What `migrate` did or would do, one line a migration under a heading. */
function planLines(t: Translate, plan: MigrationPlan, planned: boolean): string[] {
  if (plan.names.length === 0) return [t('migrate.none')];
  if (!planned && plan.direction === 'up') return [t('migrate.applied', { count: plan.names.length, names: plan.names.join(', ') })];
  if (!planned) return [t('migrate.reverted', { count: plan.names.length, names: plan.names.join(', ') })];
  const verb = plan.direction === 'up' ? t('migrate.plan_apply') : t('migrate.plan_revert');
  return [t('migrate.plan'), ...plan.names.map((name) => `  ${verb} ${name}`)];
}

function program(io: CliIO, t: Translate, run: (task: (services: Services) => Promise<void>, migrateFirst?: boolean) => Promise<void>): Command {
  const write = (text: string): void => void io.stdout.write(`${text}\n`);
  // Named after the package, as `npx declarest` runs it (`npm run manage` is the same program).
  const root = new Command(packageName)
    .description('Manage the service: database migrations, accounts, user data files and seeders.')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) });

  root
    .command('migrate')
    .description('apply pending database migrations; with a name, go forward or back to it (`zero`: revert all)')
    .argument('[target]', 'the migration to leave last applied (a unique prefix of its name), or zero')
    .option('--plan', 'list what would run, and run nothing')
    .action((target: string | undefined, options: { plan?: boolean }) =>
      run(async (services) => {
        const dirs = [services.application.migrations];
        const chosen: MigrationTarget = target === undefined ? { kind: 'latest' } : target === 'zero' ? { kind: 'zero' } : { kind: 'named', prefix: target };
        try {
          const plan = options.plan ? await migrationPlan(services.sequelize, dirs, chosen) : await migrateTo(services.sequelize, dirs, chosen);
          write(planLines(t, plan, Boolean(options.plan)).join('\n'));
        } catch (error) {
          if (error instanceof UnknownMigration) throw new CommandFailed([t('migrate.unknown', { target: error.target, names: error.known.join(', ') })]);
          throw error;
        }
      }, false),
    );

  root
    .command('makemigrations')
    .description('write the migration that gives the database what the declarations need (and schema.json, the schema it leaves)')
    .option('--name <name>', "the migration's name (default: from what it does)")
    .option('--check', 'write nothing; exit 1 and list the changes when the migrations do not build what the declarations need')
    .option('--dry-run', 'list what the migration would do, and write nothing')
    .option('--rename <table.old:new...>', 'a column renamed (kept with its values), not removed and added')
    .action((options: MakeMigrationsOptions) => makeMigrations(io, t, options));

  root
    .command('check')
    .description("look for problems without serving: declarations, migrations not made, messages missing in a language (Django's check)")
    .option('--deploy', 'also check the settings against what production needs')
    .addOption(new Option('--fail-level <level>', 'exit 1 on a finding at this level or above').choices([...FAIL_LEVELS]).default('error'))
    .action((options: CheckOptions) => runChecks(io, t, options));

  accountOptions(root.command('createuser').description('create an account'))
    .option('--staff', 'may use the admin site and change any row')
    .option('--superuser', 'has every right (implies --staff)')
    .action((options: AccountOptions) =>
      run(async (services) => {
        const user = await createAccount(services, io, t, options);
        write(t('user.created', { username: user.username }));
      }),
    );

  accountOptions(root.command('createsuperuser').description('create a superuser, asking for what the options leave out'))
    .action((options: AccountOptions) =>
      run(async (services) => {
        const user = await createAccount(services, io, t, { ...options, staff: true, superuser: true });
        write(t('user.superuser_created', { username: user.username }));
      }),
    );

  root
    .command('changepassword')
    .description("set an account's password")
    .argument('<username>')
    .option('--password-stdin', 'read the password from standard input')
    .action((username: string, options: AccountOptions) =>
      run(async (services) => {
        await changePassword(services, io, t, username, options);
        write(t('user.password_changed', { username }));
      }),
    );

  root
    .command('loaddata')
    .description("load data files: every resource's rows as dumpdata writes them; users and their API tokens from Django fixtures (auth.user, Django REST Framework's authtoken.token), Laravel's users and Sanctum's personal_access_tokens tables as JSON or CSV; all files or nothing")
    .argument('<files...>', '.json or .csv files (rows after those they refer to, whatever the order of the files)')
    .action((files: string[]) => run((services) => loadData(services, io, t, files)));

  root
    .command('dumpdata')
    .description("write the rows of every resource, or of those named, as a Django fixture (users as auth.user; loaddata reads it back)")
    .argument('[models...]', 'models to write: a label (auth.user, <table>.<name>), its first part, a table or a resource name; default: all')
    .option('-e, --exclude <model>', 'leave this model out (repeatable)', (value: string, previous: string[]) => [...previous, value], [] as string[])
    .option('-o, --output <file>', 'write to this file instead of standard output')
    .action((models: string[], options: { output?: string; exclude: string[] }) => run((services) => dumpData(services, io, t, { models, ...options })));

  root
    .command('openapi')
    .description('print the OpenAPI 3.1 description of both APIs (what GET /openapi.json serves); or guard it')
    // The committed contract is in English whatever is asked: a language beside --check or --accept would be ignored.
    .addOption(new Option('--language <language>', 'language of its texts').choices([...LANGUAGES]).conflicts(['check', 'accept']))
    .addOption(new Option('--check', 'compare it with the committed openapi.json: exit 1 on a breaking change, list additive ones').conflicts('accept'))
    .option('--accept', 'write it to openapi.json: the change is intended')
    .action((options: { language?: Language; check?: boolean; accept?: boolean }) =>
      run(async (services) => {
        if (options.check) return write(checkContract(services, t).join('\n'));
        if (options.accept) return write(acceptContract(services, t));
        const document = openApiDocument(describedRoutes(siteMounts(services)), options.language ?? cliLanguage(io.env));
        write(JSON.stringify(document, null, 2));
      }, false),
    );

  root
    .command('client')
    .description("write the application's typed TypeScript client for API users: its OpenAPI description's types (openapi-typescript) and a createApiClient factory (openapi-fetch)")
    .option('--out <file>', 'the file to write (overwritten); `-`: standard output, the default')
    .addOption(new Option('--language <language>', 'language of the comments the types carry (default: en)').choices([...LANGUAGES]))
    .action((options: ClientOptions) => run((services) => writeClient(services, io, t, options), false));

  root
    .command('prunetokens')
    .description("delete API tokens expired more than --hours ago (Sanctum's sanctum:prune-expired)")
    .option('--hours <hours>', 'hours since they expired', '24')
    .action((options: { hours: string }) =>
      run(async (services) => {
        const hours = Number(options.hours);
        if (!/^\d+$/.test(options.hours) || !Number.isSafeInteger(hours)) throw new CommandFailed([t('prunetokens.bad_hours', { value: options.hours })]);
        if (!services.tokens) throw new CommandFailed([t('prunetokens.no_tokens')]);
        write(t('prunetokens.pruned', { count: await services.tokens.pruneExpired(hours), hours }));
      }),
    );

  root
    .command('startproject')
    .description("write a new application's folder: a sample resource and its migration, messages, demo data, a test (Django's startproject)")
    .argument('<name>', 'its name: a package name and the title it is shown under')
    .argument('[directory]', 'where (default: ./<name>); empty or not there yet')
    .action((name: string, directory: string | undefined) => void startProject(io, t, name, directory));

  root
    .command('startresource')
    .description('add a resource to this application: resources/<name>.ts and its labels; then makemigrations')
    .argument('<Name>', 'the model name, e.g. Note or BlogPost')
    .action((name: string) => void startResource(io, t, applicationAt(loadConfig(io.env).appRoot).root, name));

  root
    .command('start')
    .alias('runserver')
    .description("serve the application (npm start; HOST, PORT and the other settings from the environment or .env)")
    .action(async () => (await import('../server.js')).serve());

  root
    .command('seed')
    .description('apply the seeders of seeders/ not applied yet, each once (development data is skipped in production)')
    .action(() =>
      run(async (services) => {
        const outcome = await seed(services).catch((error: unknown) => {
          throw seedFailure(t, error);
        });
        write(seedLines(t, outcome).join('\n'));
      }),
    );
  return root;
}

/** Runs one command; resolves to the process exit status. */
export async function runCli(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  const t = translator(cliLanguage(io.env), ['cli', 'common']);
  let status = 0;
  const run = async (task: (services: Services) => Promise<void>, migrateFirst = true): Promise<void> => {
    const config = loadConfig(io.env);
    let services: Services;
    try {
      services = await createServices(config, { migrate: migrateFirst, logger: createLogger('warn') });
    } catch (error) {
      // A setting refused on the way (DATABASE_URL's form): said as every refused setting is.
      if (error instanceof ConfigError) throw error;
      const key = error instanceof ApplicationError ? 'error.application' : 'error.database';
      throw new CommandFailed([t(key, { message: (error as Error).message, root: applicationAt(config.appRoot).root })]);
    }
    try {
      await task(services);
    } finally {
      await services.close();
    }
  };
  try {
    await program(io, t, run).parseAsync([...argv], { from: 'user' });
  } catch (error) {
    status = 1;
    if (error instanceof CommanderError) status = error.exitCode;
    else if (error instanceof CommandFailed) io.stderr.write(`${error.lines.join('\n')}\n`);
    else if (error instanceof ConfigError) io.stderr.write(`${describeConfigError(t, error)}\n`);
    else if ((error as { name?: string }).name === 'ExitPromptError') io.stderr.write('\n');
    else io.stderr.write(`${t('error.unexpected', { message: (error as Error).message })}\n`);
  }
  return status;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  loadDotEnv();
  process.exitCode = await runCli(process.argv.slice(2));
}
