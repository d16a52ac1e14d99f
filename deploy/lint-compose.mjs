// The compose part of `npm run lint:deploy` (see lint.mjs): each file is valid with and without a
// .env (`docker-compose config -q`, or `docker compose` v2), keeps the names the user guide relies
// on, and follows our conventions: every published host port comes from a *_HOST_PORT variable
// whose default is the guide's port, databases and object storage listen on 127.0.0.1 only,
// images carry pinned tags, no env_file (so .env stays optional), and the API containers get a
// stop grace longer than SCHEDULER_SHUTDOWN_GRACE (20s), a read-only root filesystem, no Linux
// capability, no-new-privileges, a pool login role apart from the schema owner
// (APP_DATABASE_URL as hermesx_login, which the postgres service's init script creates), and an
// object store in S3 (MinIO) that every replica shares.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** service → [host-port variable, default (the guide's port), loopback only?] */
const COMPOSE_FILES = [
  {
    file: 'docker-compose.saas.yml',
    containers: { postgres: 'hermesx-pg', redis: 'hermesx-redis', 'hermesx-saas': 'hermesx-saas' },
    ports: {
      postgres: [['PG_HOST_PORT', 5432, true]],
      redis: [['REDIS_HOST_PORT', 6379, true]],
      minio: [
        ['MINIO_HOST_PORT', 9000, true],
        ['MINIO_CONSOLE_HOST_PORT', 9001, true],
      ],
      'hermesx-saas': [['API_HOST_PORT', 18080, true]],
    },
  },
  {
    file: 'docker-compose.test.yml',
    ports: {
      'postgres-test': [['PG_HOST_PORT', 5433, true]],
      'redis-test': [['REDIS_HOST_PORT', 6380, true]],
      'minio-test': [['MINIO_HOST_PORT', 9002, true]],
    },
  },
  {
    file: 'deploy/docker-compose.multi-replica.yml',
    containers: {
      'hermesx-mr-1': 'hermesx-mr-1',
      'hermesx-mr-2': 'hermesx-mr-2',
      'hermesx-mr-3': 'hermesx-mr-3',
      'hermesx-mr-pg': 'hermesx-mr-pg',
      'hermesx-mr-redis': 'hermesx-mr-redis',
      'hermesx-mr-minio': 'hermesx-mr-minio',
    },
    ports: { 'hermesx-mr-lb': [['LB_HOST_PORT', 8080, true]] },
  },
];

const STOP_GRACE_MIN_S = 25;
const LOGIN_ROLE_SCRIPT = '/docker-entrypoint-initdb.d/10-hermesx-login-role.sh';

/** What an API container must set to keep its privileges down (docs/security.md). */
function hardeningProblems(service, definition) {
  const problems = [];
  if (definition.read_only !== true) problems.push(`service ${service}: read_only is not true`);
  if (!(definition.cap_drop ?? []).includes('ALL'))
    problems.push(`service ${service}: cap_drop does not hold ALL`);
  if (!(definition.security_opt ?? []).includes('no-new-privileges:true'))
    problems.push(`service ${service}: security_opt lacks no-new-privileges:true`);
  const env = definition.environment ?? {};
  const appUrl = String(env.APP_DATABASE_URL ?? '');
  if (!/^postgres:\/\/hermesx_login:/.test(appUrl))
    problems.push(`service ${service}: APP_DATABASE_URL does not log in as hermesx_login`);
  // Without it tenant secrets are refused and webhook secrets are stored in the clear.
  if (!env.HERMES_SECRETS_KEY) problems.push(`service ${service}: HERMES_SECRETS_KEY is not set`);
  // The root filesystem is read-only, and replicas share objects only through S3: a disk store
  // could not be written (the pod refuses to start) or would be each replica's own.
  if (!env.S3_BUCKET && !env.MINIO_ENDPOINT)
    problems.push(`service ${service}: no S3_BUCKET or MINIO_ENDPOINT (the object store)`);
  return problems;
}

/** A postgres service that serves an API must create its login role when initialised. */
function loginRoleProblems(config) {
  const problems = [];
  const apis = Object.values(config.services ?? {}).filter((d) => d.image === 'hermesx:local');
  if (apis.length === 0) return problems;
  for (const [service, definition] of Object.entries(config.services ?? {})) {
    if (!String(definition.image ?? '').startsWith('postgres:')) continue;
    const mounts = (definition.volumes ?? []).map(String);
    if (!mounts.some((m) => m.endsWith(`/init-login-role.sh:${LOGIN_ROLE_SCRIPT}:ro`)))
      problems.push(
        `service ${service}: does not mount init-login-role.sh at ${LOGIN_ROLE_SCRIPT}`,
      );
    if (!definition.environment?.HERMESX_LOGIN_PASSWORD)
      problems.push(`service ${service}: HERMESX_LOGIN_PASSWORD is not set`);
  }
  return problems;
}

function seconds(text) {
  const match = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(String(text ?? ''));
  return match && text ? Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0) : 0;
}

/** Problems with one file's conventions, read from its source (before interpolation). */
function conventionProblems(spec, config) {
  const problems = [];
  for (const [service, name] of Object.entries(spec.containers ?? {})) {
    const actual = config.services?.[service]?.container_name;
    if (actual !== name)
      problems.push(`service ${service}: container_name ${actual}, want ${name}`);
  }
  for (const [service, definition] of Object.entries(config.services ?? {})) {
    const wanted = spec.ports[service] ?? [];
    const published = (definition.ports ?? []).map(String);
    if (published.length !== wanted.length)
      problems.push(
        `service ${service}: publishes ${published.length} ports, want ${wanted.length}`,
      );
    for (const [variable, port, loopback] of wanted) {
      const form = `${loopback ? '127.0.0.1:' : ''}\${${variable}:-${port}}:`;
      if (!published.some((p) => p.startsWith(form)))
        problems.push(
          `service ${service}: no published port of the form '${form}<container port>'`,
        );
    }
    const image = definition.image ?? '';
    if (image && image !== 'hermesx:local' && (!/:[^/]+$/.test(image) || image.endsWith(':latest')))
      problems.push(`service ${service}: image ${image} has no pinned tag`);
    if (definition.env_file) problems.push(`service ${service}: env_file makes .env required`);
    if (image === 'hermesx:local' && seconds(definition.stop_grace_period) < STOP_GRACE_MIN_S)
      problems.push(
        `service ${service}: stop_grace_period ${definition.stop_grace_period ?? '10s (default)'}, want ≥ ${STOP_GRACE_MIN_S}s`,
      );
    if (image === 'hermesx:local') problems.push(...hardeningProblems(service, definition));
  }
  problems.push(...loginRoleProblems(config));
  return problems;
}

/** The host ports `config` renders (short strings or long-form mappings), per service. */
function renderedPorts(rendered) {
  const out = {};
  for (const [service, definition] of Object.entries(rendered.services ?? {})) {
    out[service] = (definition.ports ?? []).map((p) =>
      typeof p === 'object' ? Number(p.published) : Number(String(p).split(':').at(-2)),
    );
  }
  return out;
}

export async function lintCompose({ compose, YAML, check, runOk, root }) {
  for (const spec of COMPOSE_FILES) {
    const file = path.join(root, spec.file);
    for (const variant of ['no .env', '.env.example as .env', 'host ports moved']) {
      await check(`${compose.name} config ${spec.file} (${variant})`, () => {
        const projectDir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-compose-'));
        try {
          const env = { ...process.env };
          for (const list of Object.values(spec.ports)) for (const [v] of list) delete env[v];
          if (variant === '.env.example as .env')
            writeFileSync(
              path.join(projectDir, '.env'),
              readFileSync(path.join(root, '.env.example')),
            );
          let offset = 0;
          const moved = {};
          if (variant === 'host ports moved') {
            for (const list of Object.values(spec.ports))
              for (const [variable] of list)
                moved[variable] = env[variable] = String(40000 + offset++);
          }
          const args = [...compose.prefix, '--project-directory', projectDir, '-f', file];
          const rendered = YAML.parse(runOk(compose.command, [...args, 'config'], { env }));
          const ports = renderedPorts(rendered);
          const problems = [];
          for (const [service, list] of Object.entries(spec.ports)) {
            for (const [variable, port] of list) {
              const want = Number(moved[variable] ?? port);
              if (!ports[service]?.includes(want))
                problems.push(`service ${service}: host port ${want} not published`);
            }
          }
          if (variant === 'no .env') {
            const source = YAML.parse(readFileSync(file, 'utf8'), { merge: true });
            problems.push(...conventionProblems(spec, source));
          }
          if (problems.length) throw new Error(problems.join('\n'));
          return `${Object.keys(rendered.services ?? {}).length} services`;
        } finally {
          rmSync(projectDir, { recursive: true, force: true });
        }
      });
    }
  }
}
