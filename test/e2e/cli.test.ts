import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { SETTING_NAMES } from '../../src/config.js';
import path from 'node:path';
import { MIGRATIONS_DIR } from '../../src/db/migrate.js';
import { findFreePort, startRedis, type LocalServer } from '../../src/dev/processes.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';
import {
  cliEnv,
  killAllStarted,
  spawnCli,
  spawnProcess,
  REPO_ROOT,
  type CliProcess,
} from '../helpers/process-cli.js';
import { waitFor } from '../helpers/process-wait.js';

const STARTUP_TIMEOUT_MS = 30_000;

afterEach(async () => {
  await killAllStarted();
});

async function getReady(port: number): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`http://127.0.0.1:${port}/health/ready`, {
    signal: AbortSignal.timeout(3000),
  });
  return { status: response.status, body: await response.json() };
}

/** Polls /health/ready until it gives this answer, failing at once if the CLI exits. */
function waitForReadiness(
  cli: CliProcess,
  port: number,
  expected: { status: number; body: unknown },
) {
  return waitFor(
    async () => {
      if (cli.child.exitCode !== null) {
        throw new Error(`the CLI exited with ${cli.child.exitCode}: ${cli.stderr()}`);
      }
      expect(await getReady(port)).toEqual(expected);
    },
    { timeoutMs: STARTUP_TIMEOUT_MS, intervalMs: 100, what: `saas-api readiness on port ${port}` },
  );
}

function stderrLines(cli: CliProcess): string[] {
  return cli
    .stderr()
    .split('\n')
    .filter((line) => line !== '');
}

interface BadSetting {
  command: string;
  env: Record<string, string>;
  variable: string;
  value: string;
  expected: RegExp;
}

describe('bad settings', () => {
  it.each<BadSetting>([
    {
      command: 'migrate',
      env: { DATABASE_URL: 'postgres://u:p@127.0.0.1:1/db', SCHEDULER_POLL_INTERVAL: 'abc' },
      variable: 'SCHEDULER_POLL_INTERVAL',
      value: '"abc"',
      expected: /expected a duration/,
    },
    {
      command: 'saas-api',
      env: { DATABASE_URL: 'postgres://u:p@127.0.0.1:1/db', SCHEDULER_LOCK_TTL: '1m' },
      variable: 'SCHEDULER_LOCK_TTL',
      value: '"1m"',
      expected: /expected a duration greater than SCHEDULER_EXEC_TIMEOUT/,
    },
    {
      command: 'saas-api',
      env: { DATABASE_URL: 'postgres://u:p@127.0.0.1:1/db', SAAS_API_PORT: '-1' },
      variable: 'SAAS_API_PORT',
      value: '"-1"',
      expected: /expected a whole number from 0 to 65535/,
    },
    {
      command: 'saas-api',
      env: { DATABASE_URL: 'postgres://u:p@127.0.0.1:1/db', HERMES_ACP_TOKEN: 'adm' },
      variable: 'HERMES_ACP_TOKEN',
      value: '"***"',
      expected: /expected at least 32 characters/,
    },
    {
      command: 'saas-api',
      env: { DATABASE_URL: 'postgres://u:p@127.0.0.1:1/db', HERMES_ACP_TOKEN: 'my-admin-token' },
      variable: 'HERMES_ACP_TOKEN',
      value: '"***"',
      expected: /the user guide's example value, refused while listening on 0\.0\.0\.0/,
    },
    {
      command: 'saas-api',
      env: {},
      variable: 'DATABASE_URL',
      value: '',
      expected: /expected a PostgreSQL 16\+ URL/,
    },
  ])(
    '$command with a bad $variable exits 2 with one line naming it',
    async ({ command, env, variable, value, expected }) => {
      const cli = spawnCli([command], cliEnv(env));
      const exit = await cli.waitForExit(STARTUP_TIMEOUT_MS);
      expect(exit, cli.stderr()).toEqual({ code: 2, signal: null });
      const lines = stderrLines(cli);
      expect(lines).toHaveLength(1);
      const line = lines[0]!;
      expect(line).toContain(variable);
      if (value !== '') expect(line).toContain(`${variable}=${value}`);
      expect(line).toMatch(expected);
      expect(cli.stderr()).not.toMatch(/^\s+at /m);
      expect(cli.stdout()).not.toMatch(/^\s+at /m);
    },
  );
});

describe('a database that cannot be reached', () => {
  it.each(['migrate', 'saas-api'])(
    '%s names DATABASE_URL (password hidden) in its one line',
    async (command) => {
      const cli = spawnCli(
        [command],
        cliEnv({ DATABASE_URL: 'postgres://u:s3cret@127.0.0.1:1/db' }),
      );
      const exit = await cli.waitForExit(STARTUP_TIMEOUT_MS);
      expect(exit, cli.stderr()).toEqual({ code: 1, signal: null });
      expect(stderrLines(cli).at(-1)).toBe(
        'hermesx: cannot use the database (DATABASE_URL=postgres://u:***@127.0.0.1:1/db): connect ECONNREFUSED 127.0.0.1:1',
      );
      expect(cli.stderr()).not.toContain('s3cret');
    },
  );
});

describe('an object store that cannot be written', () => {
  it('saas-api refuses to start, naming OBJECT_STORE_DIR in its one line', async () => {
    const databaseUrl = await createTestDatabase({ migrate: false });
    const parent = mkdtempSync(path.join(os.tmpdir(), 'hermesx-cli-objects-'));
    try {
      // A directory under a plain file: unwritable even for root, as a read-only root filesystem.
      writeFileSync(path.join(parent, 'a-file'), 'x');
      const dir = path.join(parent, 'a-file', 'objects');
      const cli = spawnCli(
        ['saas-api'],
        cliEnv({ DATABASE_URL: databaseUrl, OBJECT_STORE_DIR: dir, SAAS_API_PORT: '0' }),
      );
      const exit = await cli.waitForExit(STARTUP_TIMEOUT_MS);
      expect(exit, cli.stderr()).toEqual({ code: 1, signal: null });
      const lines = stderrLines(cli);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^hermesx: cannot use the object store \(OBJECT_STORE_DIR=".+", .+\): cannot write to it: .*ENOTDIR.*; set OBJECT_STORE_DIR to a writable directory/,
      );
      expect(cli.stdout()).not.toContain('object store ready');
      expect(cli.stderr()).not.toMatch(/^\s+at /m);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});

describe('hermesx migrate', () => {
  it('applies the migrations to a fresh database and exits 0', async () => {
    const databaseUrl = await createTestDatabase({ migrate: false });
    const cli = spawnCli(['migrate'], cliEnv({ DATABASE_URL: databaseUrl }));
    const exit = await cli.waitForExit(STARTUP_TIMEOUT_MS);
    expect(exit, cli.stderr()).toEqual({ code: 0, signal: null });
    const files = readdirSync(MIGRATIONS_DIR).filter((file) => /^\d+_[\w-]+\.sql$/.test(file));
    const functions = readdirSync(path.join(MIGRATIONS_DIR, 'functions')).filter((file) =>
      file.endsWith('.sql'),
    );
    expect(files.length).toBeGreaterThanOrEqual(10);
    expect(cli.stdout()).toContain(
      `msg="migrations done" applied=${files.length + functions.length}`,
    );
    const { rows } = await withOwner(databaseUrl, (client) =>
      client.query<{ n: number }>('SELECT count(*)::integer AS n FROM schema_migrations'),
    );
    expect(rows[0]?.n).toBe(files.length);
  });
});

describe('hermesx saas-api', () => {
  it('serves /health/ready with Redis and exits 0 on SIGTERM within 10 s', async () => {
    const databaseUrl = await createTestDatabase();
    const port = await findFreePort();
    const cli = spawnCli(
      ['saas-api'],
      cliEnv({
        DATABASE_URL: databaseUrl,
        REDIS_URL: inject('redisUrl'),
        SAAS_API_PORT: String(port),
        SAAS_API_HOST: '127.0.0.1',
      }),
    );
    await waitForReadiness(cli, port, {
      status: 200,
      body: { status: 'ok', checks: { database: 'ok', redis: 'ok' } },
    });
    expect(cli.stdout()).not.toContain('scheduler disabled');
    // saas-api's webhooks reach public addresses only unless WEBHOOK_ALLOW_PRIVATE_NETWORKS says so.
    expect(cli.stdout()).toMatch(/msg="webhook sender started" .*allow_private_networks=false/);
    // One line says where it listens, with the host it bound; Fastify's own lines are dropped.
    const listening = cli
      .stdout()
      .split('\n')
      .filter((line) => /listening/i.test(line));
    expect(listening).toEqual([
      expect.stringMatching(/ msg="http server listening" host=127\.0\.0\.1 port=\d+ /),
    ]);

    const started = Date.now();
    process.kill(cli.pid, 'SIGTERM');
    const exit = await cli.waitForExit(10_000);
    expect(exit, cli.stderr()).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(cli.stderr()).not.toMatch(/fatal|error|^\s+at /im);
  });

  it('without REDIS_URL warns that the scheduler is disabled and still serves', async () => {
    const databaseUrl = await createTestDatabase();
    const port = await findFreePort();
    const cli = spawnCli(
      ['saas-api'],
      cliEnv({ DATABASE_URL: databaseUrl, SAAS_API_PORT: String(port) }),
    );
    await waitForReadiness(cli, port, {
      status: 200,
      body: { status: 'degraded', checks: { database: 'ok', redis: 'error' } },
    });
    const warning = cli
      .stdout()
      .split('\n')
      .find((line) => line.includes('scheduler disabled'));
    expect(warning).toMatch(/(^|\s)level=WARN msg="scheduler disabled: redis unavailable"(\s|$)/);

    process.kill(cli.pid, 'SIGTERM');
    expect(await cli.waitForExit(10_000)).toEqual({ code: 0, signal: null });
  });
});

describe('hermesx saas-api with Redis unreachable at boot', () => {
  let redis: LocalServer | undefined;

  afterEach(async () => {
    await redis?.stop();
  });

  it('warns, serves degraded, and starts the scheduler by itself once Redis appears', async () => {
    const databaseUrl = await createTestDatabase();
    const [port, redisPort] = [await findFreePort(), await findFreePort()];
    const cli = spawnCli(
      ['saas-api'],
      cliEnv({
        DATABASE_URL: databaseUrl,
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        SAAS_API_PORT: String(port),
        SCHEDULER_POLL_INTERVAL: '2s',
      }),
    );
    await waitForReadiness(cli, port, {
      status: 200,
      body: { status: 'degraded', checks: { database: 'ok', redis: 'error' } },
    });
    await waitFor(
      () => expect(cli.stdout()).toMatch(/level=WARN msg="scheduler disabled: redis unavailable"/),
      { timeoutMs: 10_000, what: 'the scheduler-disabled warning' },
    );
    expect(cli.stdout()).not.toContain('msg="scheduler started"');

    redis = await startRedis({ port: redisPort });
    await waitForReadiness(cli, port, {
      status: 200,
      body: { status: 'ok', checks: { database: 'ok', redis: 'ok' } },
    });
    // Within one poll interval (2 s) of Redis answering, plus the client's reconnect back-off.
    await waitFor(
      () => expect(cli.stdout()).toMatch(/level=INFO msg="scheduler started" poll_interval=2s/),
      { timeoutMs: 10_000, what: 'the scheduler to start' },
    );

    process.kill(cli.pid, 'SIGTERM');
    expect(await cli.waitForExit(10_000)).toEqual({ code: 0, signal: null });
  });
});

describe('the ./hermesx wrapper', () => {
  it('prints usage for --help and exits 0', { timeout: 150_000 }, async () => {
    const cli = spawnProcess(`${REPO_ROOT}/hermesx`, ['--help'], cliEnv());
    const exit = await cli.waitForExit(120_000);
    expect(exit, cli.stderr()).toEqual({ code: 0, signal: null });
    expect(cli.stdout()).toMatch(/^usage: hermesx <command>/m);
    expect(cli.stdout()).toContain('saas-api');
    expect(cli.stdout()).toContain('migrate');
  });
});

describe('the command line', () => {
  const run = async (args: string[], env: Record<string, string> = {}) => {
    const cli = spawnCli(args, cliEnv(env));
    const exit = await cli.waitForExit(STARTUP_TIMEOUT_MS);
    return { exit, stdout: cli.stdout(), stderr: cli.stderr() };
  };

  it('--help for the root and every command prints usage, exits 0 and starts nothing', async () => {
    // A database URL nothing listens on: a command that started would fail, not print help.
    const env = { DATABASE_URL: 'postgres://u:p@127.0.0.1:1/db', SAAS_API_PORT: 'not-a-port' };
    for (const args of [
      ['--help'],
      ['-h'],
      ['help'],
      ['saas-api', '--help'],
      ['migrate', '-h'],
      ['dev', '--help'],
      ['help', 'dev'],
    ]) {
      const { exit, stdout, stderr } = await run(args, env);
      expect(exit, `${args.join(' ')}: ${stderr}`).toEqual({ code: 0, signal: null });
      expect(stdout, args.join(' ')).toMatch(/^usage: hermesx /);
      expect(stderr, args.join(' ')).toBe('');
      expect(stdout, args.join(' ')).not.toMatch(/level=|listening/);
    }
    const { stdout } = await run(['dev', '--help']);
    expect(stdout).toContain('embedded PostgreSQL');
    expect(stdout).toMatch(/settings: .*SAAS_API_PORT/s);
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(`${REPO_ROOT}/package.json`, 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-V']) {
      const { exit, stdout } = await run([flag]);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(stdout).toMatch(
        new RegExp(`^hermesx ${version.replace(/\./g, '\\.')} \\(commit \\S+\\)\\n$`),
      );
    }
  });

  it('help settings lists every setting with its default', async () => {
    const { exit, stdout } = await run(['help', 'settings']);
    expect(exit).toEqual({ code: 0, signal: null });
    for (const name of SETTING_NAMES) {
      // Each one says what it does: a default and a meaning, never a pointer elsewhere.
      expect(stdout).toMatch(new RegExp(`^  ${name} +\\S.* {2}\\S`, 'm'));
    }
    expect(stdout).not.toContain('see the README');
    expect(stdout).toMatch(/^ {2}SAAS_API_PORT +18080 +HTTP port$/m);
  });

  it.each([
    [
      ['saas-api', '--port', '9999'],
      /^hermesx: unknown option --port for hermesx saas-api \(see hermesx saas-api --help\)\n$/,
    ],
    [['--verbose'], /^hermesx: unknown option --verbose for hermesx \(see hermesx --help\)\n$/],
    [['migrate', 'now'], /^hermesx: unexpected argument "now" for hermesx migrate /],
    [['dev', '--help=yes'], /^hermesx: option --help takes no value/],
    [['serve'], /^hermesx: unknown command "serve" \(see hermesx --help\)\n$/],
    [['help', 'nothing'], /^hermesx: no help topic "nothing"/],
  ])('refuses %j with one line and exit 2', async (args, message) => {
    const { exit, stdout, stderr } = await run(args, {
      DATABASE_URL: 'postgres://u:p@127.0.0.1:1/db',
    });
    expect(exit).toEqual({ code: 2, signal: null });
    expect(stderr).toMatch(message);
    expect(stderr.split('\n').filter((line) => line !== '')).toHaveLength(1);
    expect(stdout).toBe('');
  });
});
