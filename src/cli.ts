import {
  ConfigError,
  checkSecretStrength,
  loadConfig,
  requireDatabaseUrl,
  type Config,
} from './config.js';
import { MigrationError, migrate } from './db/migrate.js';
import { createLogger, type Logger } from './log.js';
import { startService } from './main.js';
import { waitForSignal } from './cli-signals.js';

const USAGE = `usage: hermesx <command>

commands:
  saas-api   run the API and the scheduler (needs DATABASE_URL)
  migrate    apply database migrations and exit (needs DATABASE_URL)
  dev        run a complete local system with zero setup (embedded PostgreSQL, local Redis)
`;

async function main(argv: string[]): Promise<number> {
  const command = argv[0];
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  const config = loadConfig();
  const log = createLogger({ format: config.logFormat, level: config.logLevel });
  switch (command) {
    case 'saas-api':
      return runService(config, log);
    case 'migrate': {
      const applied = await migrate(requireDatabaseUrl(config), log);
      log.info({ applied: applied.length }, 'migrations done');
      return 0;
    }
    case 'dev': {
      const { runDev } = await import('./dev.js');
      return runDev(config, log);
    }
    default:
      process.stderr.write(`hermesx: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

async function runService(config: Config, log: Logger): Promise<number> {
  for (const warning of checkSecretStrength(config)) log.warn(warning);
  const service = await startService(config, log);
  await waitForSignal();
  await service.stop();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof ConfigError) {
      process.stderr.write(`hermesx: ${err.message}\n`);
      process.exit(2);
    }
    const message = err instanceof Error ? err.message : String(err);
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
