// The pure side of channel messages: Markdown in each platform's dialect, the platforms' limits,
// templates, and what an attempt's answer means (throttling honoured, SMTP 4xx vs 5xx).
import { describe, expect, it } from 'vitest';
import { judgeChannelAttempt, retryAfterOf } from '../../src/channels/attempt-verdict.js';
import {
  buildDiscord,
  buildSlack,
  buildTelegram,
  buildTeams,
  LIMITS,
} from '../../src/channels/formats.js';
import {
  cutText,
  escapeMarkdownV2,
  markdownToHtml,
  markdownToMrkdwn,
  splitText,
} from '../../src/channels/markdown.js';
import {
  fillTemplate,
  renderChannelMessage,
  type ChannelMessage,
} from '../../src/channels/message.js';

const NOW = Date.parse('2026-03-02T08:00:00Z');
const message = (
  body: string,
  link: string | null = 'https://h.example.com/jobs/j/runs/r',
): ChannelMessage => ({
  title: 'Watch: succeeded',
  body,
  link,
  severity: 'info',
  time: '2026-03-02T08:00:00.000Z',
});

describe('Markdown dialects', () => {
  it('converts to Slack mrkdwn, escaping &, < and > and keeping code as it is', () => {
    expect(
      markdownToMrkdwn('# Title\n**bold** and *it* and ~~gone~~ [site](https://x.example)'),
    ).toBe('*Title*\n*bold* and _it_ and ~gone~ <https://x.example|site>');
    expect(markdownToMrkdwn('a < b & c > d `x **y**`')).toBe('a &lt; b &amp; c &gt; d `x **y**`');
    expect(markdownToMrkdwn('- one\n- two')).toBe('• one\n• two');
  });

  it('escapes every MarkdownV2 special character for Telegram', () => {
    expect(escapeMarkdownV2('1.5 * (a_b) [c]! #tag -x =y |z| {w} ~ ` > + \\')).toBe(
      '1\\.5 \\* \\(a\\_b\\) \\[c\\]\\! \\#tag \\-x \\=y \\|z\\| \\{w\\} \\~ \\` \\> \\+ \\\\',
    );
  });

  it('renders HTML with raw HTML escaped', () => {
    const html = markdownToHtml('**hi** <img src=x onerror=alert(1)>');
    expect(html).toContain('<strong>hi</strong>');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<img');
  });

  it('cuts at a boundary with the suffix, and splits without losing text', () => {
    const text = 'word '.repeat(100).trim();
    const cut = cutText(text, 50, '…');
    expect(cut.cut).toBe(true);
    expect(cut.text.length).toBeLessThanOrEqual(50);
    expect(cut.text.endsWith('word…')).toBe(true);
    const parts = splitText(text, 42);
    expect(parts.every((part) => part.length <= 42)).toBe(true);
    expect(parts.join(' ')).toBe(text);
  });
});

describe('platform limits', () => {
  const huge = Array.from({ length: 3000 }, (_, i) => `line ${i} ${'x'.repeat(40)}`).join('\n');

  it('Slack: sections of at most 3,000 characters, at most 50 blocks, cut with the link', () => {
    const body = buildSlack(message(huge)) as {
      blocks: { type: string; text?: { text: string } }[];
    };
    expect(body.blocks.length).toBeLessThanOrEqual(LIMITS.slackBlocks);
    const sections = body.blocks.filter((b) => b.type === 'section');
    expect(sections.every((s) => s.text!.text.length <= LIMITS.slackSectionChars)).toBe(true);
    expect(sections.at(-1)!.text!.text).toContain(
      '(cut: <https://h.example.com/jobs/j/runs/r|the full answer>)',
    );
  });

  it('Discord: title 256, description 4,096, embed 6,000', () => {
    const long = { ...message(huge), title: 'T'.repeat(400) };
    const embed = (buildDiscord(long) as { embeds: { title: string; description: string }[] })
      .embeds[0]!;
    expect(embed.title.length).toBeLessThanOrEqual(256);
    expect(embed.description.length).toBeLessThanOrEqual(4096);
    expect(embed.title.length + embed.description.length).toBeLessThanOrEqual(6000);
  });

  it('Telegram: at most 4,096 visible characters', () => {
    const body = buildTelegram(message(huge), 42) as { text: string };
    expect(body.text.replace(/\\(.)/g, '$1').length).toBeLessThanOrEqual(LIMITS.telegramTextChars);
  });

  it('Teams: under 28 KB', () => {
    expect(Buffer.byteLength(JSON.stringify(buildTeams(message(huge))))).toBeLessThan(28 * 1024);
  });
});

describe('templates and the message', () => {
  it('fills the known placeholders and leaves the rest as typed', () => {
    expect(
      fillTemplate('{{ job_name }}: {{answer}} {{secrets.X}} {{nope}}', {
        job_name: 'W',
        answer: 'A',
      }),
    ).toBe('W: A {{secrets.X}} {{nope}}');
  });

  it('links the run page, and says what happened', () => {
    const rendered = renderChannelMessage(
      {
        subject: 'run',
        reason: 'failures',
        job_id: 'j',
        run_id: 'r',
        job_name: 'W',
        status: 'failed',
        consecutive_failures: 3,
        error: 'down',
        error_kind: 'timeout',
      },
      'https://h.example.com',
    );
    expect(rendered).toMatchObject({
      title: 'W: failed 3 times in a row',
      body: 'timeout: down',
      link: 'https://h.example.com/jobs/j/runs/r',
      severity: 'critical',
    });
    expect(
      renderChannelMessage(
        { subject: 'run', reason: 'always', status: 'success', answer: 'x' },
        undefined,
      ).link,
    ).toBeNull();
  });
});

describe('what an attempt means', () => {
  const schedule = [1000, 2000];
  it('honours Retry-After and retry_after over the schedule', () => {
    expect(retryAfterOf('30', '', NOW)).toBe(30_000);
    expect(retryAfterOf(undefined, '{"ok":false,"parameters":{"retry_after":7}}', NOW)).toBe(7000);
    expect(retryAfterOf(undefined, '{"retry_after":1.5,"global":false}', NOW)).toBe(1500);
    const verdict = judgeChannelAttempt(
      { kind: 'answered', statusCode: 429, retryAfterMs: 30_000, response: '' },
      0,
      schedule,
      NOW,
    );
    expect(verdict).toEqual({ outcome: 'retry', nextAttemptAt: new Date(NOW + 30_000) });
  });

  it('SMTP 4xx is retried, 5xx fails; a used-up schedule fails', () => {
    expect(
      judgeChannelAttempt({ kind: 'smtp', code: 451, response: '' }, 0, schedule, NOW).outcome,
    ).toBe('retry');
    expect(
      judgeChannelAttempt({ kind: 'smtp', code: 550, response: '' }, 0, schedule, NOW).outcome,
    ).toBe('failed');
    expect(
      judgeChannelAttempt({ kind: 'smtp', code: 250, response: '' }, 0, schedule, NOW).outcome,
    ).toBe('delivered');
    expect(judgeChannelAttempt({ kind: 'connect', error: 'x' }, 2, schedule, NOW).outcome).toBe(
      'failed',
    );
    expect(
      judgeChannelAttempt(
        { kind: 'answered', statusCode: 404, retryAfterMs: null, response: '' },
        0,
        schedule,
        NOW,
      ).outcome,
    ).toBe('failed');
    expect(judgeChannelAttempt({ kind: 'refused', error: 'x' }, 0, schedule, NOW).outcome).toBe(
      'refused',
    );
  });
});
