// The names of MCP servers and of the tools they offer to the model. A server's name is its
// namespace: the model calls `<server>__<tool>`, within the model API's rule for function names
// (^[a-zA-Z0-9_-]{1,64}$). A tool name with other characters has them replaced by `_`; a name
// that does not fit in 64 characters (or collides with another once replaced) keeps its first
// characters and ends with 8 hex characters of its original's hash, so it stays unique and stable.
import { createHash } from 'node:crypto';

/** A server's name: lower-case letters, digits, `_` and `-`, 1 to 24 characters. */
export const SERVER_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,23}$/;
export const SERVER_NAME_RULE =
  '1 to 24 lower-case letters, digits, _ and -, starting with a letter or digit';

export const TOOL_NAME_MAX_CHARS = 64;
const SEPARATOR = '__';

/** The model-facing names of one server's tools, in order; `taken` holds names already used. */
export function exposeToolNames(
  server: string,
  tools: readonly string[],
  taken: ReadonlySet<string> = new Set(),
): string[] {
  const used = new Set(taken);
  return tools.map((tool) => {
    const plain = `${server}${SEPARATOR}${tool.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
    const name =
      plain.length <= TOOL_NAME_MAX_CHARS && !used.has(plain)
        ? plain
        : hashed(plain, `${server}${SEPARATOR}${tool}`);
    used.add(name);
    return name;
  });
}

function hashed(plain: string, original: string): string {
  const suffix = createHash('sha256').update(original).digest('hex').slice(0, 8);
  return `${plain.slice(0, TOOL_NAME_MAX_CHARS - suffix.length - 1)}_${suffix}`;
}
