// The model server's own words, made fit for a tenant: its first line, without the addresses and
// credentials that server or the network may quote (an internal URL, a host name, an IP, a key).

const MAX_LINE_CHARS = 200;

// The model client's prefixes (src/agent/llm.ts): what follows them is the server's or the
// network's own text. A status without a message is the line itself.
const ANSWERED = /^the model server answered (\d{3})(?:: (.*))?$/s;
const NETWORK = /^(?:cannot reach the model server|the model server connection failed): (.*)$/s;

// Order matters: whole URLs first (they hold hosts and credentials), then named secrets, then
// bare addresses and host names.
const REDACTIONS: [RegExp, string][] = [
  [/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '[url]'],
  [/\b(bearer|basic)\s+[^\s,;)\]}"']+/gi, '$1 [redacted]'],
  [
    /\b(api[_-]?key|access[_-]?key|key|token|secret|password|passwd|pwd|authorization)(\s*[=:]\s*)[^\s,;)\]}"']+/gi,
    '$1$2[redacted]',
  ],
  // OpenAI-style identifiers: keys (sk-, pk-, rk-), organisations, projects, sessions.
  [/\b(?:sk|pk|rk|org|proj|sess)[-_][A-Za-z0-9_-]{2,}/g, '[redacted]'],
  [/\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, '[redacted]'],
  [/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g, '[address]'],
  // IPv6: with a "::", or eight groups (so a clock time such as 10:30:00 stays).
  [
    /(?<![\w:])\[?(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)?::(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)?\]?(?::\d{1,5})?(?![\w:])/gi,
    '[address]',
  ],
  [/\[?\b(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}\b\]?(?::\d{1,5})?/gi, '[address]'],
  // getaddrinfo names the host it could not find, often a single label (a Kubernetes service).
  [/\b(ENOTFOUND|EAI_AGAIN)\s+\S+/g, '$1 [host]'],
  // Lower-case dotted names whose last label is a word (so llama3.1 or 2.00 GiB stay).
  [/\b(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z][a-z0-9-]*[a-z0-9]\b(?::\d{1,5})?/g, '[host]'],
  [/\b[a-z][a-z0-9-]*:\d{2,5}\b/g, '[host]'],
  [/\blocalhost\b/gi, '[host]'],
  // A long token with digits is a key, a signature or an id no tenant needs.
  [/\b(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{32,}\b/g, '[redacted]'],
];

/**
 * The first line of the model server's error as a tenant may read it: hosts, IP addresses, URLs
 * and credential-looking tokens replaced, at most 200 characters; null when nothing is left.
 */
export function modelErrorLine(error: string): string | null {
  const firstLine = (error.split(/\r?\n/, 1)[0] ?? '').trim();
  const answered = ANSWERED.exec(firstLine);
  const network = NETWORK.exec(firstLine);
  const words = answered
    ? answered[2]?.trim() || `HTTP ${answered[1]}`
    : network
      ? (network[1] ?? '')
      : firstLine;
  let line = words;
  for (const [pattern, replacement] of REDACTIONS) line = line.replace(pattern, replacement);
  line = line.replace(/\s+/g, ' ').trim();
  if (line === '') return null;
  const chars = [...line];
  return chars.length <= MAX_LINE_CHARS ? line : `${chars.slice(0, MAX_LINE_CHARS - 1).join('')}…`;
}
