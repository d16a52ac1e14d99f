// The chart's production conventions, checked on its renderings by `npm run lint:deploy` (see
// lint.mjs): credentials reach the pods from Secrets only, every StatefulSet is governed by a
// headless Service, names are per release, /metrics is announced for scraping, the in-chart
// passwords are stable across renders when given, NOTES.txt warns about an install that
// cannot work (no admin token, a model server on localhost), and privileges stay apart: the app's
// pool logs in as the in-chart database's login role (created by a hook Job), the in-chart Redis
// has a password by default, NetworkPolicies guard the databases, and the Ingress keeps /metrics
// out.

/** Settings that are credentials (or may carry one): never a plain env value. */
const SECRET_KEYS = [
  'DATABASE_URL',
  'APP_DATABASE_URL',
  'REDIS_URL',
  'REDIS_PASSWORD',
  'REDIS_SENTINEL_PASSWORD',
  'HERMES_ACP_TOKEN',
  'HERMES_API_KEY',
  'HERMES_SECRETS_KEY',
  'LLM_API_KEY',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'MINIO_ACCESS_KEY',
  'MINIO_SECRET_KEY',
];

/** Kinds the Kubernetes schemas do not know (CRDs): checked here only. */
export const isCustomResource = (doc) => doc.apiVersion.startsWith('monitoring.coreos.com/');

export const SECURE_VARIANT = {
  name: 'release "other": credentials in env, Redis password, ServiceMonitor',
  release: 'other',
  set: {
    'redis.auth.enabled': true,
    'metrics.serviceMonitor.enabled': true,
    'metrics.serviceMonitor.labels.release': 'prometheus',
  },
  strings: {
    'env.HERMES_ACP_TOKEN': 'admin-token',
    'env.HERMES_API_KEY': 'api-key',
    'env.HERMES_SECRETS_KEY': '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff',
    'env.LLM_API_KEY': 'llm-key',
    'env.LLM_API_URL': 'http://ollama.ai.svc:11434/v1',
    'postgresql.auth.password': 'pg-password',
    'postgresql.auth.loginPassword': 'login-password',
    'redis.auth.password': 'redis-password',
  },
};

export const SENTINEL_VARIANT = {
  name: 'in-chart Redis with a replica and Sentinel',
  set: { 'redis.sentinel.enabled': true },
  strings: {},
};

const describe = (doc) => `${doc.kind}/${doc.metadata?.name ?? '?'}`;

/** Problems with the conventions in one rendering. */
export function conventionProblems(variant, docs, existingSecret) {
  const problems = [];
  const expect = (condition, message) => {
    if (!condition) problems.push(message);
  };
  const find = (kind) => docs.filter((d) => d.kind === kind);
  const secrets = new Map(find('Secret').map((s) => [s.metadata.name, s.data ?? {}]));
  const services = find('Service');
  const workloads = [...find('Deployment'), ...find('StatefulSet')];

  for (const workload of workloads) {
    for (const container of workload.spec.template.spec.containers) {
      const where = `${describe(workload)} ${container.name}`;
      for (const entry of container.env ?? []) {
        if (SECRET_KEYS.includes(entry.name) && entry.value !== undefined) {
          const expanded = /\$\([A-Z_]+\)@/.test(entry.value) || !entry.value.includes('@');
          expect(
            entry.name === 'REDIS_URL' && expanded,
            `${where}: ${entry.name} is a plain value (${entry.value})`,
          );
        }
        const ref = entry.valueFrom?.secretKeyRef;
        if (ref && ref.name !== existingSecret) {
          expect(
            secrets.get(ref.name)?.[ref.key] !== undefined,
            `${where}: ${entry.name} refers to ${ref.name}/${ref.key}, which is not rendered`,
          );
        }
      }
    }
  }
  // Runs in flight may finish for as long as Kubernetes waits: the scheduler's grace (set or
  // derived) must end before terminationGracePeriodSeconds.
  for (const deployment of find('Deployment')) {
    const spec = deployment.spec.template.spec;
    const app = spec.containers.find((c) => (c.args ?? []).includes('saas-api'));
    if (!app) continue;
    const grace = (app.env ?? []).find((e) => e.name === 'SCHEDULER_SHUTDOWN_GRACE')?.value;
    const graceSeconds = grace === undefined ? 20 : durationSeconds(grace);
    const waitSeconds = spec.terminationGracePeriodSeconds ?? 30;
    expect(
      graceSeconds !== undefined && graceSeconds < waitSeconds,
      `${describe(deployment)}: SCHEDULER_SHUTDOWN_GRACE ${grace ?? '20s'} does not end before terminationGracePeriodSeconds ${waitSeconds}`,
    );
    expect(
      graceSeconds !== undefined && waitSeconds - graceSeconds <= 60,
      `${describe(deployment)}: SCHEDULER_SHUTDOWN_GRACE ${grace ?? '20s'} aborts runs long before Kubernetes stops waiting (${waitSeconds} s)`,
    );
  }
  for (const deployment of find('Deployment')) problems.push(...objectStoreProblems(deployment));
  for (const set of find('StatefulSet')) {
    const governing = services.find((s) => s.metadata.name === set.spec.serviceName);
    expect(
      governing?.spec.clusterIP === 'None',
      `${describe(set)}: serviceName ${set.spec.serviceName} is not a headless Service`,
    );
  }
  const release = variant.release ?? 'hermesx';
  for (const doc of docs) {
    expect(
      doc.metadata.name === release || doc.metadata.name.startsWith(`${release}-`),
      `${describe(doc)}: name not prefixed with the release name ${release}`,
    );
  }
  const deployment = find('Deployment')[0];
  const annotations = deployment?.spec.template.metadata.annotations ?? {};
  expect(
    annotations['prometheus.io/scrape'] === 'true' &&
      annotations['prometheus.io/path'] === '/metrics',
    'pods carry no prometheus.io scrape annotations',
  );
  problems.push(...privilegeProblems(docs, release));
  if (variant === SECURE_VARIANT) problems.push(...secureProblems(docs, release));
  if (variant.name === SENTINEL_VARIANT.name) problems.push(...sentinelProblems(docs));
  return problems;
}

/** Role separation, the Redis password, NetworkPolicies and /metrics off the Ingress. */
function privilegeProblems(docs, release) {
  const problems = [];
  const expect = (condition, message) => {
    if (!condition) problems.push(message);
  };
  const app = docs.find((d) => d.kind === 'Deployment')?.spec.template.spec.containers[0];
  const env = app?.env ?? [];
  const sets = docs.filter((d) => d.kind === 'StatefulSet');
  const postgres = sets.find((d) => d.metadata.name.endsWith('-postgresql'));
  const policies = docs.filter((d) => d.kind === 'NetworkPolicy');
  if (postgres) {
    const appUrl = env.find((e) => e.name === 'APP_DATABASE_URL')?.valueFrom?.secretKeyRef;
    expect(
      appUrl?.name === postgres.metadata.name && appUrl.key === 'app-database-url',
      'APP_DATABASE_URL is not the in-chart login role (app-database-url)',
    );
    const job = docs.find((d) => d.kind === 'Job' && d.metadata.name.endsWith('-login-role'));
    const hooks = job?.metadata.annotations?.['helm.sh/hook'] ?? '';
    expect(
      hooks.includes('post-install') && hooks.includes('post-upgrade'),
      'no post-install/post-upgrade hook Job creates the login role',
    );
    const mounts = postgres.spec.template.spec.containers[0].volumeMounts ?? [];
    expect(
      mounts.some((m) => m.mountPath.startsWith('/docker-entrypoint-initdb.d/')),
      'the in-chart PostgreSQL does not create the login role when initialised',
    );
    expect(
      policies.some(
        (p) => p.spec.podSelector.matchLabels?.['app.kubernetes.io/component'] === 'database',
      ),
      'no NetworkPolicy guards the in-chart PostgreSQL',
    );
  }
  const redis = sets.find((d) => d.metadata.name.endsWith('-redis'));
  const sentinel = sets.some((d) => d.metadata.name.endsWith('-redis-sentinel'));
  if (redis) {
    // With Sentinel the password is checked by sentinelProblems (it comes from a script there).
    const args = (redis.spec.template.spec.containers[0].args ?? []).join(' ');
    expect(
      sentinel || args.includes('--requirepass'),
      'the in-chart Redis runs without a password',
    );
    expect(
      policies.some(
        (p) => p.spec.podSelector.matchLabels?.['app.kubernetes.io/component'] === 'cache',
      ),
      'no NetworkPolicy guards the in-chart Redis',
    );
  }
  expect(
    policies.some(
      (p) =>
        p.spec.podSelector.matchLabels?.['app.kubernetes.io/name'] === 'hermesx' &&
        p.spec.podSelector.matchLabels?.['app.kubernetes.io/instance'] === release,
    ),
    'no NetworkPolicy for the app pods',
  );
  for (const ingress of docs.filter((d) => d.kind === 'Ingress')) {
    for (const rule of ingress.spec.rules ?? []) {
      const paths = rule.http?.paths ?? [];
      const metrics = paths.find((p) => p.path === '/metrics' && p.pathType === 'Exact');
      const blocked = docs.find(
        (d) => d.kind === 'Service' && d.metadata.name === metrics?.backend.service?.name,
      );
      expect(
        metrics && blocked && !blocked.spec.selector,
        `${describe(ingress)} host ${rule.host}: /metrics is not routed to a Service without endpoints`,
      );
    }
  }
  return problems;
}

function secureProblems(docs, release) {
  const problems = [];
  const expect = (condition, message) => {
    if (!condition) problems.push(message);
  };
  const app = docs.find((d) => d.kind === 'Deployment')?.spec.template.spec.containers[0];
  const env = app?.env ?? [];
  const names = env.map((e) => e.name);
  for (const key of ['HERMES_ACP_TOKEN', 'HERMES_API_KEY', 'LLM_API_KEY']) {
    const entry = env.find((e) => e.name === key);
    expect(
      entry?.valueFrom?.secretKeyRef?.name === `${release}-hermesx-env`,
      `${key} is not read from ${release}-hermesx-env`,
    );
  }
  const url = env.find((e) => e.name === 'REDIS_URL')?.value;
  expect(
    url === `redis://:$(HERMESX_REDIS_PASSWORD)@${release}-hermesx-redis:6379`,
    `REDIS_URL ${url} does not carry the Redis password`,
  );
  expect(
    names.indexOf('HERMESX_REDIS_PASSWORD') >= 0 &&
      names.indexOf('HERMESX_REDIS_PASSWORD') < names.indexOf('REDIS_URL'),
    'HERMESX_REDIS_PASSWORD is not defined before REDIS_URL (Kubernetes expands only earlier ones)',
  );
  const redis = docs.find((d) => d.kind === 'StatefulSet' && d.metadata.name.endsWith('-redis'));
  const args = (redis?.spec.template.spec.containers[0].args ?? []).join(' ');
  expect(args.includes('--requirepass $(REDIS_PASSWORD)'), 'Redis runs without requirepass');
  const monitor = docs.find((d) => d.kind === 'ServiceMonitor');
  const service = docs.find(
    (d) => d.kind === 'Service' && d.metadata.name === `${release}-hermesx`,
  );
  expect(monitor, 'no ServiceMonitor');
  expect(
    monitor &&
      Object.entries(monitor.spec.selector.matchLabels).every(
        ([k, v]) => service?.metadata.labels[k] === v,
      ),
    'the ServiceMonitor does not select the app Service',
  );
  expect(
    monitor?.spec.endpoints?.[0]?.port === 'http' && monitor.spec.endpoints[0].path === '/metrics',
    'the ServiceMonitor does not scrape http /metrics',
  );
  expect(
    monitor?.metadata.labels.release === 'prometheus',
    'serviceMonitor.labels are not applied',
  );
  return problems;
}

/** The HA Redis: a password everywhere, three sentinels, the app pointed at them. */
function sentinelProblems(docs) {
  const problems = [];
  const expect = (condition, message) => {
    if (!condition) problems.push(message);
  };
  const env = docs.find((d) => d.kind === 'Deployment')?.spec.template.spec.containers[0].env ?? [];
  const value = (name) => env.find((e) => e.name === name);
  expect(!value('REDIS_URL'), 'REDIS_URL is set beside REDIS_SENTINELS');
  const sets = docs.filter((d) => d.kind === 'StatefulSet');
  const redis = sets.find((d) => d.metadata.name.endsWith('-redis'));
  const sentinel = sets.find((d) => d.metadata.name.endsWith('-redis-sentinel'));
  const sentinels = value('REDIS_SENTINELS')?.value ?? '';
  expect(
    sentinels.split(',').length === 3 &&
      sentinels.startsWith(`${sentinel?.metadata.name}-0.${sentinel?.spec.serviceName}.`),
    `REDIS_SENTINELS ${sentinels} does not list the three sentinels`,
  );
  for (const name of ['REDIS_PASSWORD', 'REDIS_SENTINEL_PASSWORD']) {
    expect(
      value(name)?.valueFrom?.secretKeyRef?.name === redis?.metadata.name,
      `${name} is not read from the Redis Secret`,
    );
  }
  expect(redis?.spec.replicas === 2, 'the Redis StatefulSet is not a primary and one replica');
  expect(sentinel?.spec.replicas === 3, 'there are not three sentinels');
  const scripts =
    docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name.includes('-redis'))?.data ?? {};
  expect(
    /--requirepass "\$REDIS_PASSWORD"/.test(scripts['redis.sh'] ?? ''),
    'Redis runs without a password',
  );
  expect(
    /^requirepass \$REDIS_PASSWORD$/m.test(scripts['sentinel.sh'] ?? ''),
    'Sentinel runs without a password',
  );
  expect(
    /down-after-milliseconds mymaster 5000$/m.test(scripts['sentinel.sh'] ?? ''),
    'down-after-milliseconds is not 5000 by default',
  );
  return problems;
}

/** Two renders with the passwords given must give identical Secrets. */
export function secretsOf(docs) {
  return JSON.stringify(
    docs
      .filter((d) => d.kind === 'Secret')
      .map((d) => [d.metadata.name, d.data])
      .sort(),
  );
}

/** NOTES.txt of `helm install --dry-run=client`: the warnings it must and must not show. */
export const NOTES_CASES = [
  {
    name: 'default values',
    args: [],
    warns: ['no admin token', 'LLM_API_URL is not set', 'no S3 (env.S3_BUCKET'],
  },
  {
    name: 'a model server on localhost',
    args: ['--set-string', 'env.LLM_API_URL=http://localhost:11434/v1'],
    warns: ['no admin token', 'LLM_API_URL is http://localhost:11434/v1', 'no S3 (env.S3_BUCKET'],
  },
  {
    name: 'admin token and a reachable model server',
    args: [
      '--set-string',
      'env.HERMES_ACP_TOKEN=t',
      '--set-string',
      'env.LLM_API_URL=http://ollama.ai.svc:11434/v1',
      '--set-string',
      'postgresql.auth.password=p',
      '--set-string',
      'env.MINIO_ENDPOINT=http://minio.storage.svc:9000',
      '--set-string',
      'env.MINIO_ACCESS_KEY=hermesx',
      '--set-string',
      'env.MINIO_SECRET_KEY=minio-secret',
    ],
    warns: [],
  },
];

export function notesProblems(output, expected) {
  const notes = output.slice(output.indexOf('NOTES:'));
  const problems = [];
  if (!output.includes('NOTES:')) return ['no NOTES printed'];
  for (const warning of expected.warns) {
    if (!notes.includes(warning)) problems.push(`NOTES lack "${warning}"`);
  }
  const warnings = (notes.match(/^WARNING: .*/gm) ?? []).length;
  if (warnings !== expected.warns.length)
    problems.push(`${warnings} WARNING lines, want ${expected.warns.length}:\n${notes}`);
  return problems;
}

/** Seconds of a Go-style duration such as 300s, 5m or 1h30m (undefined if it is not one). */
function durationSeconds(text) {
  const parts = [...String(text).matchAll(/(\d+)(h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) return undefined;
  const unit = { h: 3600, m: 60, s: 1 };
  return parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2]], 0);
}

/**
 * The app's object store must be writable under a read-only root filesystem: S3 in env (or
 * existingSecret), or OBJECT_STORE_DIR on a mounted volume.
 */
function objectStoreProblems(deployment) {
  const spec = deployment.spec.template.spec;
  const app = spec.containers.find((c) => (c.args ?? []).includes('saas-api'));
  if (!app || app.securityContext?.readOnlyRootFilesystem !== true) return [];
  const env = new Map((app.env ?? []).map((e) => [e.name, e]));
  if (env.has('S3_BUCKET') || env.has('MINIO_ENDPOINT') || (app.envFrom ?? []).length > 0) {
    return [];
  }
  const dir = env.get('OBJECT_STORE_DIR')?.value;
  const mounted = (app.volumeMounts ?? []).some((m) => m.mountPath === dir && !m.readOnly);
  return dir !== undefined && mounted
    ? []
    : [
        `${describe(deployment)}: no S3 and OBJECT_STORE_DIR (${dir ?? 'unset'}) is not on a writable volume under a read-only root filesystem`,
      ];
}
