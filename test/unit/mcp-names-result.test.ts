// The pure parts of MCP tools: the names the model calls them by, and how a result is shown.
import { describe, expect, it } from 'vitest';
import { exposeToolNames } from '../../src/mcp/names.js';
import { base64Bytes, renderToolResult } from '../../src/mcp/result.js';

const RULE = /^[a-zA-Z0-9_-]{1,64}$/;

describe('exposeToolNames', () => {
  it('namespaces by server, keeps fitting names, and makes every name fit the model API rule', () => {
    const long = 'x'.repeat(80);
    const names = exposeToolNames('crm', ['find', 'log.call', 'log_call', long, `${long}y`]);
    expect(names[0]).toBe('crm__find');
    expect(names[1]).toBe('crm__log_call');
    // Collides once its dot is replaced: hashed, stable and distinct.
    expect(names[2]).toMatch(/^crm__log_call_[0-9a-f]{8}$/);
    for (const name of names) expect(name).toMatch(RULE);
    expect(new Set(names).size).toBe(names.length);
    expect(exposeToolNames('crm', ['find', 'log.call', 'log_call', long, `${long}y`])).toEqual(
      names,
    );
  });
});

describe('renderToolResult', () => {
  it('names binary content with its mime type and size', () => {
    const data = Buffer.alloc(1000, 1).toString('base64');
    expect(base64Bytes(data)).toBe(1000);
    const shown = JSON.parse(
      renderToolResult(
        {
          content: [
            { type: 'audio', mimeType: 'audio/wav', data },
            {
              type: 'resource',
              resource: { uri: 'file:///a.bin', mimeType: 'application/pdf', blob: data },
            },
          ],
        },
        32_000,
      ),
    );
    expect(shown).toEqual({
      ok: true,
      content: [
        { type: 'audio', mime_type: 'audio/wav', bytes: 1000, note: 'binary content, not shown' },
        {
          type: 'resource',
          uri: 'file:///a.bin',
          mime_type: 'application/pdf',
          bytes: 1000,
          note: 'binary content, not shown',
        },
      ],
    });
  });

  it('keeps within the bound, cutting text and structured content, each saying so', () => {
    const text = renderToolResult(
      {
        content: [
          { type: 'text', text: 'a'.repeat(50_000) },
          { type: 'text', text: 'b'.repeat(50_000) },
        ],
        structuredContent: { rows: 'c'.repeat(50_000) },
      },
      8192,
    );
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(8192);
    const shown = JSON.parse(text) as { content: { text: string }[]; structured_content: string };
    expect(shown.content[0]!.text).toMatch(/^a+ …\[cut from 50000 bytes\]$/);
    expect(shown.content[1]!.text).toMatch(/^b+ …\[cut from 50000 bytes\]$/);
    expect(shown.structured_content).toMatch(/cut from/);
  });

  it('shows an isError result as ok: false with the server words', () => {
    expect(
      JSON.parse(
        renderToolResult({ isError: true, content: [{ type: 'text', text: 'no' }] }, 1000),
      ),
    ).toEqual({ ok: false, content: [{ type: 'text', text: 'no' }] });
  });
});
