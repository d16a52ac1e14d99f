import { parseArgs } from 'node:util';
import { readBuildInfo } from './build-info.js';
import { COMMANDS, commandHelp, rootHelp, settingsHelp } from './cli-help.js';
import {
  ConfigError,
  checkSecretStrength,
  loadConfig,
  requireDatabaseUrl,
  type Config,
} from './config.js';
import { checkLoginRole } from './db/login-role.js';
import { MigrationError, migrate } from './db/migrate.js';
import { createLogger, redactUrl, type Logger } from './log.js';
import { startService } from './main.js';
import { ObjectStoreUnwritableError } from './storage/probe-store.js';
import { waitForSignal } from './cli-signals.js';

/** A command line the CLI refuses: one line on stderr, exit 2. */
class UsageError extends Error {}

/** The database setting in use (password hidden), to name it when it cannot be reached. */
let databaseSetting = '';

const HELP_OPTIONS = { help: { type: 'boolean', short: 'h' } } as const;
const DEV_OPTIONS = { 'demo-model': { type: 'boolean' } } as const;

type Action =
  | { kind: 'print'; text: string; code: number }
  | { kind: 'run'; command: 'saas-api' | 'migrate' | 'dev'; demoModel?: boolean };

/** What the arguments ask for; parsing starts nothing and reads no settings. */
function parseCommandLine(argv: string[]): Action {
  const [first, ...rest] = argv;
  if (first === undefined) return { kind: 'print', text: rootHelp(), code: 2 };
  if (first.startsWith('-')) {
    const { values } = parse(
      argv,
      { ...HELP_OPTIONS, version: { type: 'boolean', short: 'V' } },
      'hermesx',
    );
    if (values.version) {
      const build = readBuildInfo();
      return {
        kind: 'print',
        text: `hermesx ${build.version} (commit ${build.commit})\n`,
        code: 0,
      };
    }
    return { kind: 'print', text: rootHelp(), code: 0 };
  }
  if (first === 'help') {
    const { positionals } = parse(rest, HELP_OPTIONS, 'hermesx help', 1);
    const topic = positionals[0];
    if (topic === undefined) return { kind: 'print', text: rootHelp(), code: 0 };
    if (topic === 'settings') return { kind: 'print', text: settingsHelp(), code: 0 };
    const help = COMMANDS[topic];
    if (!help) throw new UsageError(`no help topic "${topic}" (try hermesx help)`);
    return { kind: 'print', text: commandHelp(topic, help), code: 0 };
  }
  const help = COMMANDS[first];
  if (!help) throw new UsageError(`unknown command "${first}" (see hermesx --help)`);
  // --demo-model exists for dev alone: saas-api and migrate refuse it as an unknown option.
  const options = first === 'dev' ? { ...HELP_OPTIONS, ...DEV_OPTIONS } : HELP_OPTIONS;
  const { values } = parse(rest, options, `hermesx ${first}`);
  if (values.help) return { kind: 'print', text: commandHelp(first, help), code: 0 };
  const demoModel = (values as { 'demo-model'?: boolean })['demo-model'] === true;
  return { kind: 'run', command: first as 'saas-api' | 'migrate' | 'dev', demoModel };
}

type Options = NonNullable<Parameters<typeof parseArgs>[0]>['options'];

/** node:util parseArgs, strict; its errors become one line that says where help is. */
function parse(
  args: string[],
  options: Options,
  command: string,
  maxPositionals = 0,
): { values: Record<string, unknown>; positionals: string[] } {
  const forHelp = `see ${command} --help`;
  let parsed;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (err) {
    const code = (err as { code?: string }).code;
    const option = /'([^']+)'/.exec(err instanceof Error ? err.message : '')?.[1] ?? '';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      throw new UsageError(`unknown option ${option} for ${command} (${forHelp})`);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      throw new UsageError(`option ${option.split(', ').at(-1)} takes no value (${forHelp})`);
    }
    throw new UsageError(`invalid arguments for ${command} (${forHelp})`);
  }
  const extra = parsed.positionals[maxPositionals];
  if (extra !== undefined) {
    throw new UsageError(
      `unexpected argument "${extra}" for ${command} (settings are environment variables: hermesx help settings)`,
    );
  }
  return parsed;
}

async function main(argv: string[]): Promise<number> {
  const action = parseCommandLine(argv);
  if (action.kind === 'print') {
    (action.code === 0 ? process.stdout : process.stderr).write(action.text);
    return action.code;
  }
  const config = loadConfig();
  if (config.databaseUrl && action.command !== 'dev') {
    databaseSetting = `DATABASE_URL=${redactUrl(config.databaseUrl)}`;
  }
  const log = createLogger({ format: config.logFormat, level: config.logLevel });
  switch (action.command) {
    case 'saas-api':
      return runService(config, log);
    case 'migrate': {
      const applied = await migrate(requireDatabaseUrl(config), log);
      log.info({ applied: applied.length }, 'migrations done');
      return 0;
    }
    case 'dev': {
      const { runDev } = await import('./dev.js');
      return runDev(config, log, { demoModel: action.demoModel === true });
    }
  }
}

async function runService(config: Config, log: Logger): Promise<number> {
  for (const warning of checkSecretStrength(config)) log.warn(warning);
  const service = await startService(config, log);
  // Listening now: a SIGTERM from here on must stop the service, not kill the process.
  const signal = waitForSignal();
  // After the migrations (startService), which need the owner; the pool should not be it.
  const roleWarning = await checkLoginRole(
    config.appDatabaseUrl ?? requireDatabaseUrl(config),
  ).catch(() => undefined);
  if (roleWarning) log.warn(roleWarning);
  await signal;
  await service.stop();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof ConfigError || err instanceof UsageError) {
      process.stderr.write(`hermesx: ${err.message}\n`);
      process.exit(2);
    }
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof ObjectStoreUnwritableError) {
      process.stderr.write(`hermesx: ${message}\n`);
      process.exit(1);
    }
    if (isConnectionError(err) && databaseSetting) {
      process.stderr.write(`hermesx: cannot use the database (${databaseSetting}): ${message}\n`);
      process.exit(1);
    }
    const known = err instanceof MigrationError || isConnectionError(err);
    process.stderr.write(`hermesx: ${known ? '' : 'fatal: '}${message}\n`);
    process.exit(1);
  },
);

function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' && /^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|28P01|3D000|28000)$/.test(code)
  );
}
