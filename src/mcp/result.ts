// A tools/call result as the model reads it: one JSON text, at most `maxBytes`. Text parts and
// structuredContent are kept (cut, saying so, when they exceed the bound); images, audio and
// other binary content are named with their mime type and size, never inlined (base64 would
// spend the model's context on bytes it cannot read). `isError` results are results too: the
// model reads `ok: false` and the server's words, and corrects itself.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

type Part = Record<string, unknown>;

/** The bytes a base64 text decodes to. */
export function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

function describePart(part: CallToolResult['content'][number]): Part {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
    case 'audio':
      return {
        type: part.type,
        mime_type: part.mimeType,
        bytes: base64Bytes(part.data),
        note: 'binary content, not shown',
      };
    case 'resource': {
      const { resource } = part;
      return 'text' in resource && typeof resource.text === 'string'
        ? { type: 'resource', uri: resource.uri, mime_type: resource.mimeType, text: resource.text }
        : {
            type: 'resource',
            uri: resource.uri,
            mime_type: resource.mimeType,
            bytes: base64Bytes(String((resource as { blob?: unknown }).blob ?? '')),
            note: 'binary content, not shown',
          };
    }
    case 'resource_link':
      return { type: 'resource_link', uri: part.uri, name: part.name, mime_type: part.mimeType };
    default:
      return { type: String((part as { type?: unknown }).type ?? 'unknown') };
  }
}

/** The result's text for the model, within maxBytes. */
export function renderToolResult(result: CallToolResult, maxBytes: number): string {
  const content = (result.content ?? []).map(describePart);
  const answer: Part = { ok: result.isError !== true, content };
  if (result.structuredContent !== undefined) answer.structured_content = result.structuredContent;
  let text = JSON.stringify(answer);
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  // Too long: the structured content becomes a cut JSON text, then each text part is cut in
  // turn to a share of what is left, so every part keeps its beginning.
  if (answer.structured_content !== undefined) {
    answer.structured_content = cutText(JSON.stringify(answer.structured_content), maxBytes / 2);
  }
  const texts = content.filter((part) => typeof part.text === 'string');
  const originals = texts.map((part) => String(part.text));
  for (let room = maxBytes; ; room = Math.floor(room * 0.8)) {
    const share = Math.max(64, Math.floor(room / Math.max(1, texts.length)) - 64);
    texts.forEach((part, i) => (part.text = cutText(originals[i] ?? '', share)));
    text = JSON.stringify(answer);
    if (Buffer.byteLength(text, 'utf8') <= maxBytes || room < 256) break;
  }
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  return JSON.stringify({
    ok: answer.ok,
    content: [{ type: 'text', text: cutText(text, maxBytes - 200) }],
  });
}

function cutText(text: string, maxBytes: number): string {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= maxBytes) return text;
  const marker = ` …[cut from ${bytes} bytes]`;
  const keep = Buffer.from(text, 'utf8').subarray(0, Math.max(0, maxBytes - marker.length));
  return keep.toString('utf8').replace(/\uFFFD+$/, '') + marker;
}
