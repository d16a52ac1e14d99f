import { describe, expect, it } from 'vitest';
import { modelErrorLine } from '../../src/scheduler/model-error-line.js';
import { tenantErrorText } from '../../src/scheduler/tenant-error.js';

describe("the model server's first line for tenants", () => {
  it.each([
    [
      'the model server answered 401: Incorrect API key provided: sk-proj-abc123. https://internal-llm.corp:8443 (org org-42)',
      'Incorrect API key provided: [redacted]. [url] (org [redacted])',
    ],
    ['the model server answered 500', 'HTTP 500'],
    [
      'the model server answered 404: model "llama3.1:8b" not found, try pulling it first\n  at gpu-7.corp',
      'model "llama3.1:8b" not found, try pulling it first',
    ],
    [
      'cannot reach the model server: connect ECONNREFUSED 10.0.0.5:11434',
      'connect ECONNREFUSED [address]',
    ],
    ['cannot reach the model server: getaddrinfo ENOTFOUND ollama', 'getaddrinfo ENOTFOUND [host]'],
    [
      'cannot reach the model server: connect ECONNREFUSED ::1:11434',
      'connect ECONNREFUSED [address]',
    ],
    [
      'the model server answered 502: upstream https://user:pass@10.1.2.3:8443/v1 failed at gpu-node-7.internal.corp (token=abc) at 10:30:00',
      'upstream [url] failed at [host] (token=[redacted]) at 10:30:00',
    ],
    [
      'the model server answered 503: overloaded; ask ops@example.com or Bearer abc.def',
      'overloaded; ask [redacted] or Bearer [redacted]',
    ],
    ['the model server answered with invalid JSON', 'the model server answered with invalid JSON'],
  ])('%s', (error, line) => {
    expect(modelErrorLine(error)).toBe(line);
  });

  it('cuts at 200 characters and keeps only the first line', () => {
    const line = modelErrorLine(`the model server answered 500: ${'a '.repeat(300)}\nsecond`);
    expect([...(line ?? '')].length).toBe(200);
    expect(line).toMatch(/…$/);
    expect(line).not.toContain('second');
  });

  it('is null when nothing is left', () => {
    expect(modelErrorLine('  \nhttps://a.example/x')).toBeNull();
  });

  it("joins the tenant's text for the model's kinds only", () => {
    const error = 'cannot reach the model server: connect ECONNREFUSED 10.0.0.5:11434';
    expect(tenantErrorText('model_unreachable', 'r1', error)).toBe(
      'the model server could not be reached: "connect ECONNREFUSED [address]"; details are in the service log (run id r1)',
    );
    expect(tenantErrorText('agent_error', 'r1', 'boom at 10.0.0.5')).toBe(
      'the agent could not finish the run (a limit such as its steps, or an internal error); details are in the service log (run id r1)',
    );
    expect(tenantErrorText('timeout', 'r1', 'the model server did not answer in time')).toBe(
      'the model server did not answer in time',
    );
  });
});
