// Stand-in for `minio server DIR [--address :9000] [--console-address :9001]` (test
// infrastructure): s3rver, an S3-compatible server, on the API port with its files in DIR, and a
// small page on the console port. MinIO's liveness path /minio/health/live answers 200. Like
// MinIO, it takes MINIO_ROOT_USER / MINIO_ROOT_PASSWORD as the credentials it accepts (s3rver
// alone knows only its own S3RVER key and refuses any other with 403 InvalidAccessKeyId).
import http from 'node:http';
import S3rver from 's3rver';
import Account from 's3rver/lib/models/account.js';

const rootUser = process.env.MINIO_ROOT_USER ?? 'minioadmin';
const rootPassword = process.env.MINIO_ROOT_PASSWORD ?? 'minioadmin';
Account.DUMMY_ACCOUNT.createKeyPair(rootUser, rootPassword);

const [command, directory, ...rest] = process.argv.slice(2);
if (command !== 'server' || !directory) {
  process.stderr.write('usage: minio server DIR [--address :9000] [--console-address :9001]\n');
  process.exit(2);
}
function portOf(flag, fallback) {
  const i = rest.indexOf(flag);
  const value = i >= 0 ? rest[i + 1] : undefined;
  return value ? Number(value.split(':').pop()) : fallback;
}
const apiPort = portOf('--address', 9000);
const consolePort = portOf('--console-address', 0);

const s3 = new S3rver({
  address: '0.0.0.0',
  port: apiPort,
  directory,
  silent: true,
  allowMismatchedSignatures: true,
  // Path-style only, as the service addresses MinIO: with virtual hosts on, s3rver would take the
  // host name ("minio") for a bucket.
  vhostBuckets: false,
});
// s3rver is a Koa app: answer MinIO's health paths before its own middleware does.
s3.middleware.unshift(async (ctx, next) => {
  if (ctx.path === '/minio/health/live' || ctx.path === '/minio/health/ready') {
    ctx.status = 200;
    return;
  }
  await next();
});
await s3.run();
process.stdout.write(`S3-API: http://0.0.0.0:${apiPort} (s3rver stand-in, data in ${directory})\n`);

if (consolePort) {
  http
    .createServer((_, res) => res.end('MinIO console stand-in (test infrastructure)\n'))
    .listen(consolePort, '0.0.0.0');
  process.stdout.write(`Console: http://0.0.0.0:${consolePort}\n`);
}
const stop = () => void s3.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
