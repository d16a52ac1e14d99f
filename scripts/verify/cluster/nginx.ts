// nginx for `npm run verify:cluster`: installed from Debian's packages when missing, started in
// the foreground from a generated config in the temp dir, round robin to the replicas on loopback.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findFreePort, stopChild } from '../../../src/dev/processes.js';
import { onCleanup, until, type Say } from '../harness.js';

function findExecutable(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  return dirs
    .filter((dir) => dir !== '')
    .map((dir) => path.join(dir, name))
    .find((file) => existsSync(file));
}

/** nginx's path; installs it from Debian's packages when missing (root only). */
export function ensureNginx(say: Say): string {
  const found = findExecutable('nginx');
  if (found) return found;
  if (process.getuid?.() !== 0) {
    throw new Error(
      'nginx is not installed and this user cannot install it: run `apt-get install -y nginx-light` (or nginx) as root, then run again',
    );
  }
  const apt = (args: string[]) =>
    spawnSync('apt-get', args, {
      encoding: 'utf8',
      timeout: 300_000,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  say('nginx is missing: installing it (apt-get update; apt-get install -y nginx-light)');
  const update = apt(['update', '-qq']);
  const errors = [update.error?.message ?? update.stderr?.trim() ?? ''];
  for (const pkg of ['nginx-light', 'nginx']) {
    const result = apt(['install', '-y', '-qq', '--no-install-recommends', pkg]);
    const installed = findExecutable('nginx');
    if (result.status === 0 && installed) return installed;
    errors.push(`${pkg}: ${result.error?.message ?? result.stderr?.trim().slice(-500) ?? ''}`);
  }
  throw new Error(
    `nginx could not be installed with apt-get (${errors.filter(Boolean).join('; ')}); install nginx-light or nginx and run again`,
  );
}

/** Round robin to the replicas, as deploy/nginx-lb.conf, on a free loopback port. */
function nginxConfig(dir: string, port: number, podPorts: number[]): string {
  return `worker_processes 1;
events { worker_connections 512; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  upstream hermesx {
${podPorts.map((p) => `    server 127.0.0.1:${p} max_fails=3 fail_timeout=10s;`).join('\n')}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    client_max_body_size 1m;
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host $host;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    add_header X-Upstream $upstream_addr always;
    location /health/ {
      proxy_pass http://hermesx;
      proxy_next_upstream off;
      proxy_connect_timeout 2s;
      proxy_read_timeout 10s;
    }
    location / {
      proxy_pass http://hermesx;
      proxy_connect_timeout 5s;
      proxy_read_timeout 600s;
      proxy_send_timeout 600s;
      proxy_buffering off;
      proxy_next_upstream error timeout;
      proxy_next_upstream_tries 2;
    }
  }
}
`;
}

export async function startNginx(bin: string, tmpDir: string, podPorts: number[]) {
  const dir = path.join(tmpDir, 'nginx');
  mkdirSync(dir, { recursive: true });
  const port = await findFreePort();
  const conf = path.join(dir, 'nginx.conf');
  const errorLog = path.join(dir, 'error.log');
  writeFileSync(conf, nginxConfig(dir, port, podPorts));
  const version = spawnSync(bin, ['-v'], { encoding: 'utf8' }).stderr.trim();
  const args = ['-p', `${dir}/`, '-c', conf, '-e', errorLog];
  const child = spawn(bin, [...args, '-g', `daemon off; pid ${dir}/nginx.pid;`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  onCleanup('nginx', () => stopChild(child, 5000));
  const url = `http://127.0.0.1:${port}`;
  const ready = await until(
    async () => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error('exited');
      const response = await fetch(`${url}/health/live`, { signal: AbortSignal.timeout(2000) });
      return response.ok;
    },
    15_000,
    100,
  );
  if (!ready) {
    const log = existsSync(errorLog) ? readFileSync(errorLog, 'utf8').slice(-2000) : '';
    throw new Error(`nginx did not serve ${url} within 15 s: ${output.slice(-2000)} ${log}`);
  }
  return { url, pid: child.pid ?? 0, version };
}
