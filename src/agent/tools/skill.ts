// The skill tool: progressive disclosure of the tenant's skills. The run's system message lists
// each skill's name and description; the model calls skill {name} for the full text.
import { z } from 'zod';
import type { SkillLibrary, SkillSummary } from '../../skills/library.js';
import { truncateText } from '../loop.js';
import type { AgentTool } from '../tool.js';

/** Bytes of the skill listing in a run's system message. */
export const SKILL_LISTING_BYTES = 8 * 1024;
/** Bytes of the skills a job preloads, all together. */
export const PRELOADED_SKILLS_BYTES = 64 * 1024;

const Args = z.object({ name: z.string().min(1).max(64) });

export function createSkillTool(skills: SkillLibrary, listed: readonly SkillSummary[]): AgentTool {
  return {
    definition: {
      type: 'function',
      function: {
        name: 'skill',
        description:
          "Read one of this tenant's skills (instructions for a kind of task) by name. The skills available are listed in the system message.",
        parameters: {
          type: 'object',
          properties: { name: { type: 'string', enum: listed.map((skill) => skill.name) } },
          required: ['name'],
        },
      },
    },
    async run(raw, context) {
      const parsed = Args.safeParse(raw);
      if (!parsed.success) return failure('invalid_arguments', 'name: expected a skill name');
      const found = await skills.get(context.tenantId, parsed.data.name);
      if (!found) {
        const names = listed.map((skill) => skill.name).join(', ') || 'none';
        return failure(
          'not_found',
          `there is no skill named ${parsed.data.name} (skills: ${names})`,
        );
      }
      return found.content;
    },
  };
}

/** The system message's part that lists the skills, bounded. */
export function describeSkills(listed: readonly SkillSummary[]): string {
  const lines = [
    'Skills of this tenant (call the skill tool with a name to read one before doing that kind of task):',
  ];
  let bytes = Buffer.byteLength(lines[0] as string);
  let shown = 0;
  for (const skill of listed) {
    const line = `- ${skill.name}: ${truncateText(skill.description.replaceAll('\n', ' '), 300)}`;
    bytes += Buffer.byteLength(line) + 1;
    if (bytes > SKILL_LISTING_BYTES) break;
    lines.push(line);
    shown += 1;
  }
  if (shown < listed.length) lines.push(`(${listed.length - shown} more not listed)`);
  return lines.join('\n');
}

function failure(code: string, message: string): string {
  return JSON.stringify({ ok: false, error: { code, message } });
}
