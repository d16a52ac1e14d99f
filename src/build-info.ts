import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BuildInfo {
  /** package.json's version. */
  version: string;
  /** The git commit built, from HERMESX_COMMIT (set at image build) or the checkout; else unknown. */
  commit: string;
}

// src/build-info.ts and dist/build-info.js both sit one level below package.json.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

let cached: BuildInfo | undefined;

/** What is running: shown by `hermesx --version`, in /openapi.json and as hermesx_build_info. */
export function readBuildInfo(): BuildInfo {
  cached ??= { version: readVersion(), commit: readCommit() };
  return cached;
}

function readVersion(): string {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    version?: string;
  };
  return manifest.version ?? '0.0.0';
}

function readCommit(): string {
  const given = process.env.HERMESX_COMMIT?.trim();
  if (given) return given;
  try {
    const commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 2000,
    }).trim();
    return /^[0-9a-f]{7,40}$/.test(commit) ? commit : 'unknown';
  } catch {
    return 'unknown';
  }
}
