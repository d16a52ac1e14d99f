// A skill is a SKILL.md document: YAML front matter between `---` lines with at least `name` and
// `description`, then Markdown instructions the agent reads when the skill is relevant.
//
//   parseSkillDocument(text) → {name, description, body}   (throws SkillFormatError)
import { parseDocument } from 'yaml';

export const SKILL_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const MAX_SKILL_DESCRIPTION_CHARS = 1024;
const MAX_FRONT_MATTER_CHARS = 8 * 1024;

export class SkillFormatError extends Error {
  override name = 'SkillFormatError';
}

export interface SkillDocument {
  name: string;
  description: string;
  /** The Markdown after the front matter. */
  body: string;
}

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

export function parseSkillDocument(text: string): SkillDocument {
  // PostgreSQL's text cannot hold U+0000: the description is stored there, and the rest would
  // reach prompts and stored answers; refused here so it is a 400, not a failed INSERT.
  if (text.includes('\u0000')) {
    throw new SkillFormatError('a skill may not contain U+0000 (NUL)');
  }
  const match = FRONT_MATTER.exec(text);
  if (!match) {
    throw new SkillFormatError(
      'a skill starts with YAML front matter: a line "---", "name: …" and "description: …", then "---"',
    );
  }
  const yamlText = match[1] as string;
  if (yamlText.length > MAX_FRONT_MATTER_CHARS) {
    throw new SkillFormatError(
      `the front matter is longer than ${MAX_FRONT_MATTER_CHARS} characters`,
    );
  }
  let meta: unknown;
  // Plain data only: the core schema, no custom tags (an unknown tag is refused, not ignored),
  // and few aliases (no "billion laughs").
  const parsed = parseDocument(yamlText, { schema: 'core', uniqueKeys: true });
  const problem = parsed.errors[0] ?? parsed.warnings[0];
  if (problem) {
    throw new SkillFormatError(
      `the front matter is not valid YAML: ${problem.message.split('\n')[0] ?? ''}`,
    );
  }
  try {
    meta = parsed.toJS({ maxAliasCount: 10 });
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new SkillFormatError(`the front matter is not valid YAML: ${reason}`);
  }
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) {
    throw new SkillFormatError('the front matter must be a YAML mapping with name and description');
  }
  const { name, description } = meta as Record<string, unknown>;
  if (typeof name !== 'string' || !SKILL_NAME_PATTERN.test(name)) {
    throw new SkillFormatError(
      'name: expected 1-64 lower-case letters, digits and hyphens, starting with a letter or digit (e.g. daily-summary)',
    );
  }
  if (typeof description !== 'string' || description.trim() === '') {
    throw new SkillFormatError(
      'description: expected a non-empty text saying when to use the skill',
    );
  }
  if (description.includes('\u0000')) {
    throw new SkillFormatError('description: may not contain U+0000 (NUL), escaped or not');
  }
  if (description.length > MAX_SKILL_DESCRIPTION_CHARS) {
    throw new SkillFormatError(
      `description: at most ${MAX_SKILL_DESCRIPTION_CHARS} characters, got ${description.length}`,
    );
  }
  return { name, description: description.trim(), body: text.slice(match[0].length) };
}
