// `{{secrets.NAME}}` references. The model writes them in an http_request header or URL; they
// are replaced by the value only at the moment the request leaves the process.
//
//   listSecretReferences(text) → names (unique, in order)
//   substituteSecrets(text, values: Map<name, value>) → text   (throws SecretReferenceError)
export const SECRET_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const REFERENCE = /\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]{0,63})\s*\}\}/g;

export class SecretReferenceError extends Error {
  override name = 'SecretReferenceError';
  constructor(readonly secretName: string) {
    super(`there is no secret named ${secretName}`);
  }
}

export function listSecretReferences(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(REFERENCE)) names.add(match[1] as string);
  return [...names];
}

export function substituteSecrets(text: string, values: ReadonlyMap<string, string>): string {
  return text.replace(REFERENCE, (_, name: string) => {
    const value = values.get(name);
    if (value === undefined) throw new SecretReferenceError(name);
    return value;
  });
}
