// `npm test` must leave the working tree clean: the dashboard screenshots (tracked under
// docs/img) are rewritten only on request.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { screenshotDir } from '../browser/page-checks.js';
import { REPO_ROOT } from '../helpers/process-cli.js';

describe('screenshot folder', () => {
  it('is outside the repository unless HERMESX_UPDATE_SCREENSHOTS=1', () => {
    expect(path.relative(REPO_ROOT, screenshotDir({})).startsWith('..')).toBe(true);
    expect(screenshotDir({ HERMESX_UPDATE_SCREENSHOTS: '1' })).toBe(
      path.join(REPO_ROOT, 'docs', 'img'),
    );
  });
});
