// The shipped deployment files' security defaults, read as text: whom X-Forwarded-For is believed
// from (auth throttling counts the address it names), what is published and how the service runs.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_SECRETS_KEY } from '../../src/secrets/key.js';
import { REPO_ROOT } from '../helpers/process-cli.js';

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');

describe('deployment defaults', () => {
  it('has nginx set X-Forwarded-For to the address it saw, not what the client sent', () => {
    const nginx = read('deploy/nginx-lb.conf');
    expect(nginx).toMatch(/proxy_set_header X-Forwarded-For \$remote_addr;/);
    expect(nginx).not.toContain('$proxy_add_x_forwarded_for');
  });

  it('trusts only the address of nginx in compose, and no private range in the chart', () => {
    const compose = read('deploy/docker-compose.multi-replica.yml');
    expect(compose).toMatch(/SAAS_TRUSTED_PROXIES: \$\{SAAS_TRUSTED_PROXIES:-172\.31\.240\.10\}/);
    expect(compose).toMatch(/ipv4_address: 172\.31\.240\.10/);
    const values = read('deploy/helm/hermesx/values.yaml');
    expect(values).toMatch(/^ {2}SAAS_TRUSTED_PROXIES: ""$/m);
    for (const file of [
      'deploy/docker-compose.multi-replica.yml',
      'deploy/helm/hermesx/values.yaml',
    ])
      expect(read(file)).not.toMatch(
        /SAAS_TRUSTED_PROXIES:.*(10\.0\.0\.0\/8|172\.16\.0\.0\/12|192\.168)/,
      );
  });

  it('publishes every port of the composes on loopback only, the API and nginx included', () => {
    for (const file of ['docker-compose.saas.yml', 'deploy/docker-compose.multi-replica.yml']) {
      const published = [...read(file).matchAll(/^\s+- '([^']+:\d+)'$/gm)].map((m) => m[1] ?? '');
      expect(published.length, file).toBeGreaterThan(0);
      for (const port of published) expect(port, file).toMatch(/^127\.0\.0\.1:/);
    }
  });

  it('ships .env.example without secrets, with the hint to make them', () => {
    const example = read('.env.example');
    expect(example).toMatch(/^HERMES_ACP_TOKEN=$/m);
    expect(example).toMatch(/^HERMES_API_KEY=$/m);
    expect(example).toContain('openssl rand -hex 32');
    expect(example).not.toMatch(/my-admin-token\n|=my-api-key/);
  });

  it('sets HERMES_SECRETS_KEY everywhere: the example key in compose, a kept generated one in the chart', () => {
    for (const file of ['docker-compose.saas.yml', 'deploy/docker-compose.multi-replica.yml']) {
      expect(read(file), file).toContain(
        `HERMES_SECRETS_KEY: \${HERMES_SECRETS_KEY:-${EXAMPLE_SECRETS_KEY}}`,
      );
    }
    // Empty in .env.example: the compose default applies, and the hint says how to make one.
    expect(read('.env.example')).toMatch(/openssl rand -hex 32\)[^]*\nHERMES_SECRETS_KEY=\n/);
    const secret = read('deploy/helm/hermesx/templates/secrets-key.yaml');
    expect(secret).toContain('helm.sh/resource-policy: keep');
    const helpers = read('deploy/helm/hermesx/templates/_helpers.tpl');
    expect(helpers).toMatch(/lookup "v1" "Secret" .*hermesx\.secretsKeyName/);
    expect(helpers).toContain('randBytes 32');
  });

  it('shares one object store between replicas: MinIO in compose, S3 values or an emptyDir in the chart', () => {
    const compose = read('deploy/docker-compose.multi-replica.yml');
    expect(compose).toContain('MINIO_ENDPOINT: http://hermesx-mr-minio:9000');
    expect(compose).toMatch(/^ {2}hermesx-mr-minio:$/m);
    expect(compose).toMatch(/mc mb --ignore-existing "mr\/\$\$MINIO_BUCKET"/);
    expect(compose).toMatch(/hermesx-mr-minio-init:\n\s+condition: service_completed_successfully/);
    expect(compose).not.toContain('/app/.hermesx');
    const values = read('deploy/helm/hermesx/values.yaml');
    for (const name of [
      'S3_BUCKET',
      'S3_ENDPOINT',
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
      'MINIO_ENDPOINT',
    ])
      expect(values).toMatch(new RegExp(`^ {2}${name}: ""$`, 'm'));
    const helpers = read('deploy/helm/hermesx/templates/_helpers.tpl');
    expect(helpers).toMatch(/"S3_SECRET_ACCESS_KEY" "MINIO_ACCESS_KEY" "MINIO_SECRET_KEY"/);
    const deployment = read('deploy/helm/hermesx/templates/deployment.yaml');
    expect(deployment).toMatch(/- name: objects\n\s+emptyDir:/);
    expect(deployment).toContain('- name: OBJECT_STORE_DIR');
  });

  it('runs the API containers without capabilities or privilege escalation', () => {
    for (const file of ['docker-compose.saas.yml', 'deploy/docker-compose.multi-replica.yml']) {
      const text = read(file);
      expect(text, file).toMatch(/^\s+cap_drop: \[ALL\]$/m);
      expect(text, file).toMatch(/^\s+security_opt: \['no-new-privileges:true'\]$/m);
    }
  });
});
