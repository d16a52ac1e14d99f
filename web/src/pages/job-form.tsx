import { McpServerChoice } from '../components/mcp-server-choice';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { NotifyRulesEditor, type NotifyRule } from './notify-rules';
import { api, ApiFailure, messageOf, type Job, type Preview } from '../api';
import {
  controlsOf,
  EMPTY_CONTROLS,
  JobControls,
  toBody,
  type ControlValues,
} from '../components/job-controls';
import {
  AnswerFields,
  answerOf,
  EMPTY_ANSWER,
  toAnswerBody,
  type AnswerValues,
} from '../components/job-answer';
import { Alert, Field, ReadOnlyNote, describedBy } from '../components/ui';
import { browserZone, formatInZone, zoneNames } from '../format';
import { navigate } from '../router';
import { deniedNow } from '../session';
import { describeSchedule, findDstNotes, type DstNote } from '../schedule';

type FieldName =
  'name' | 'schedule' | 'timezone' | 'prompt' | 'description' | 'controls' | 'answer';
type Errors = Partial<Record<FieldName | 'form', string>>;

const PREVIEW_DELAY_MS = 300;

/** New job (no jobId) or Edit job: the schedule is checked by the server while typing. */
export function JobFormPage({ jobId }: { jobId?: string }) {
  const [name, setName] = useState('');
  const [schedule, setSchedule] = useState('0 9 * * 1-5');
  const [timezone, setTimezone] = useState(browserZone);
  const [prompt, setPrompt] = useState('');
  const [description, setDescription] = useState('');
  const [controls, setControls] = useState<ControlValues>(EMPTY_CONTROLS);
  const [skills, setSkills] = useState('');
  const [previousResult, setPreviousResult] = useState(false);
  const [answer, setAnswer] = useState<AnswerValues>(EMPTY_ANSWER);
  const [mcpServers, setMcpServers] = useState<string[]>([]);
  const [notify, setNotify] = useState<NotifyRule[] | null>(null);
  // Kept apart so that a late preview cannot clear what the server said on submit.
  const [submitErrors, setSubmitErrors] = useState<Errors>({});
  const [previewErrors, setPreviewErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const [loaded, setLoaded] = useState(!jobId);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [dstNotes, setDstNotes] = useState<DstNote[]>([]);
  const zones = useMemo(zoneNames, []);

  useEffect(() => {
    if (!jobId) return;
    api<Job>('GET', `/v1/cron-jobs/${encodeURIComponent(jobId)}`)
      .then((job) => {
        setName(job.name);
        setSchedule(job.schedule);
        setTimezone(job.timezone);
        setPrompt(job.prompt);
        setDescription(job.description ?? '');
        setControls(controlsOf(job));
        setSkills((job.skills ?? []).join(', '));
        setPreviousResult(job.context?.previous_result ?? false);
        setAnswer(answerOf(job));
        setMcpServers(job.mcp_servers ?? []);
        setNotify(job.notify ?? null);
        setLoaded(true);
      })
      .catch((err: unknown) => setSubmitErrors({ form: messageOf(err) }));
  }, [jobId]);

  useEffect(() => {
    // What submit said about the schedule no longer holds once it changes.
    setSubmitErrors((e) => ({ ...e, schedule: undefined, timezone: undefined }));
    if (!schedule.trim()) {
      setPreviewErrors({});
      setPreview(null);
      setDstNotes([]);
      return;
    }
    const controller = new AbortController();
    const timer = window.setTimeout(() => {
      api<Preview>('POST', '/v1/cron-jobs/preview', { schedule, timezone, count: 5 })
        .then(async (result) => {
          if (controller.signal.aborted) return;
          setPreview(result);
          setPreviewErrors({});
          const notes = await findDstNotes(
            schedule,
            result.timezone,
            Date.now(),
            controller.signal,
          );
          if (!controller.signal.aborted) setDstNotes(notes);
        })
        .catch((err: unknown) => {
          if (controller.signal.aborted) return;
          setPreview(null);
          setDstNotes([]);
          setPreviewErrors(fieldErrorOf(err));
        });
    }, PREVIEW_DELAY_MS);
    return () => {
      controller.abort();
      window.clearTimeout(timer);
    };
  }, [schedule, timezone]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setSubmitErrors({});
    try {
      let answerBody: ReturnType<typeof toAnswerBody>;
      try {
        answerBody = toAnswerBody(answer);
      } catch (err) {
        setSubmitErrors({ answer: messageOf(err) });
        return;
      }
      const body = {
        ...answerBody,
        name,
        schedule,
        timezone,
        prompt,
        // Empty: none (null clears a description on edit).
        description: description.trim() ? description : null,
        skills: skills
          .split(/[\s,]+/)
          .map((skill) => skill.trim())
          .filter(Boolean),
        context: { previous_result: previousResult },
        mcp_servers: mcpServers,
        notify,
        ...toBody(controls, Boolean(jobId)),
      };
      const job = jobId
        ? await api<Job>('PATCH', `/v1/cron-jobs/${encodeURIComponent(jobId)}`, body)
        : await api<Job>('POST', '/v1/cron-jobs', body);
      navigate(`/jobs/${job.id}`);
    } catch (err) {
      setSubmitErrors(fieldErrorOf(err));
    } finally {
      setBusy(false);
    }
  };

  const errors = mergeErrors(previewErrors, submitErrors);
  const denied = deniedNow('jobs:write');
  const words = describeSchedule(schedule);
  const affected = new Set(dstNotes.flatMap((n) => n.firesMs));
  return (
    <section>
      <p class="crumbs">
        <a href={jobId ? `/jobs/${jobId}` : '/jobs'}>← {jobId ? 'Back to the job' : 'Jobs'}</a>
      </p>
      <h1>{jobId ? 'Edit job' : 'New job'}</h1>
      <ReadOnlyNote scope="jobs:write">You may try the form; saving is disabled.</ReadOnlyNote>
      <Alert message={errors.form ?? null} />
      {loaded ? (
        <div class="form-grid">
          <form class="card" onSubmit={(e) => void submit(e)} noValidate>
            <Field id="name" label="Name" error={errors.name}>
              <input
                id="name"
                value={name}
                maxLength={200}
                required
                onInput={(e) => setName(e.currentTarget.value)}
                {...describedBy('name', errors.name)}
              />
            </Field>
            <Field
              id="schedule"
              label="Schedule"
              error={errors.schedule}
              hint={
                <>
                  Cron (<code>0 9 * * 1-5</code>, 6 fields with seconds, <code>L</code>,{' '}
                  <code>W</code>, <code>#</code>), <code>@daily</code> or <code>@every 15m</code>.
                  {words ? <strong class="meaning"> {words}.</strong> : null}
                </>
              }
            >
              <input
                id="schedule"
                value={schedule}
                spellcheck={false}
                autocomplete="off"
                class="mono"
                required
                onInput={(e) => setSchedule(e.currentTarget.value)}
                {...describedBy('schedule', errors.schedule, true)}
              />
            </Field>
            <Field
              id="timezone"
              label="Time zone"
              error={errors.timezone}
              hint="Type to search the IANA zones, e.g. America/New_York."
            >
              <input
                id="timezone"
                list="zones"
                value={timezone}
                autocomplete="off"
                spellcheck={false}
                onInput={(e) => setTimezone(e.currentTarget.value)}
                {...describedBy('timezone', errors.timezone, true)}
              />
              <datalist id="zones">
                {zones.map((zone) => (
                  <option key={zone} value={zone} />
                ))}
              </datalist>
            </Field>
            <Field
              id="prompt"
              label="Prompt"
              error={errors.prompt}
              hint="What the agent does at each run."
            >
              <textarea
                id="prompt"
                rows={6}
                value={prompt}
                required
                onInput={(e) => setPrompt(e.currentTarget.value)}
                {...describedBy('prompt', errors.prompt, true)}
              />
            </Field>
            <Field
              id="description"
              label="Description"
              error={errors.description}
              hint="Optional: what the job is for, for the people who read it (at most 2,000 characters)."
            >
              <textarea
                id="description"
                rows={3}
                maxLength={2000}
                value={description}
                onInput={(e) => setDescription(e.currentTarget.value)}
                {...describedBy('description', errors.description, true)}
              />
            </Field>
            <NotifyRulesEditor rules={notify} onChange={setNotify} />
            <Field
              id="skills"
              label="Skills to preload"
              hint="Names of your skills, separated by commas (at most 8); each run reads them first."
            >
              <input
                id="skills"
                class="mono"
                value={skills}
                spellcheck={false}
                autocomplete="off"
                onInput={(e) => setSkills(e.currentTarget.value)}
                {...describedBy('skills', undefined, true)}
              />
            </Field>
            <McpServerChoice value={mcpServers} onChange={setMcpServers} />
            <label class="check">
              <input
                type="checkbox"
                checked={previousResult}
                onChange={(e) => setPreviousResult(e.currentTarget.checked)}
              />{' '}
              Show each run the previous successful run's result
            </label>
            <AnswerFields values={answer} onChange={setAnswer} error={errors.answer} />
            <JobControls values={controls} onChange={setControls} error={errors.controls} />
            <div class="actions">
              <button
                type="submit"
                class="primary"
                disabled={busy || denied !== undefined}
                title={denied}
              >
                {jobId ? 'Save' : 'Create'}
              </button>
              <a class="button" href={jobId ? `/jobs/${jobId}` : '/jobs'}>
                Cancel
              </a>
            </div>
          </form>
          <aside class="card preview" aria-labelledby="preview-title">
            <h2 id="preview-title">Next five runs</h2>
            {preview ? (
              <ol class="fire-times">
                {withinLimits(preview.next, controls).map((t) => (
                  <li key={t} class={affected.has(new Date(t).getTime()) ? 'dst' : ''}>
                    {formatInZone(t, preview.timezone)}
                    {preview.timezone !== browserZone ? (
                      <span class="muted small yours">
                        your time {formatInZone(t, browserZone)}
                      </span>
                    ) : null}
                  </li>
                ))}
              </ol>
            ) : (
              <p class="muted">{errors.schedule ? 'Fix the schedule to see its runs.' : '…'}</p>
            )}
            {limitNotes(controls).map((note) => (
              <p key={note} class="muted small" role="note">
                {note}
              </p>
            ))}
            {dstNotes.map((note) => (
              <p key={note.key} class="warning" role="note">
                <span aria-hidden="true">⚠ </span>
                {note.text}
              </p>
            ))}
          </aside>
        </div>
      ) : null}
    </section>
  );
}

/** The previewed fire times the limits leave: none after ends_at, at most max_runs. */
function withinLimits(times: string[], controls: ControlValues): string[] {
  const endsAtMs = controls.endsAt ? new Date(controls.endsAt).getTime() : Infinity;
  const maxRuns = controls.maxRuns ? Number(controls.maxRuns) : Infinity;
  return times.filter((t) => new Date(t).getTime() <= endsAtMs).slice(0, maxRuns);
}

/** The preview's word on the overlap policy (skip, the default, goes unsaid). */
const OVERLAP_NOTES: Record<ControlValues['overlap'], string | null> = {
  skip: null,
  buffer_one:
    'A run that comes while the previous one is still running waits and runs right after it (one at most).',
  allow_all: 'A run that comes while the previous one is still running runs beside it.',
  cancel_other: 'A run that comes while the previous one is still running cancels it and starts.',
};

function limitNotes(controls: ControlValues): string[] {
  const notes: string[] = [];
  if (controls.endsAt) {
    notes.push(
      `No run after ${formatInZone(new Date(controls.endsAt).toISOString(), browserZone)}.`,
    );
  }
  if (controls.maxRuns) notes.push(`Stops itself after ${controls.maxRuns} runs in all.`);
  if (controls.timeout) notes.push(`Each run may take at most ${controls.timeout}.`);
  const overlapNote = OVERLAP_NOTES[controls.overlap];
  if (overlapNote) notes.push(overlapNote);
  if (controls.jitter) {
    notes.push(
      `Each run starts up to ${controls.jitter} after the time shown (the same offset on every replica).`,
    );
  }
  return notes;
}

/** Submit's errors win over the preview's, field by field. */
function mergeErrors(preview: Errors, submitted: Errors): Errors {
  const merged: Errors = { ...preview };
  for (const [field, message] of Object.entries(submitted) as [
    keyof Errors,
    string | undefined,
  ][]) {
    if (message) merged[field] = message;
  }
  return merged;
}

/** Which field a server error concerns, and quota errors in plain words. */
function fieldErrorOf(err: unknown): Errors {
  if (!(err instanceof ApiFailure)) return { form: messageOf(err) };
  const message = err.message;
  switch (err.code) {
    case 'invalid_schedule':
      return /time zone|CRON_TZ|TZ=/.test(message) ? { timezone: message } : { schedule: message };
    case 'schedule_too_frequent':
      return { schedule: `Too frequent for your plan: ${message}.` };
    case 'quota_exceeded':
      return { form: `Job limit reached: ${message}.` };
    case 'rate_limited':
      return { form: `Too many requests: ${message}.` };
    case 'model_not_allowed':
    case 'jitter_too_long':
    case 'limit_reached':
      return { controls: message };
    case 'validation_error':
      if (/output_schema|models/.test(message)) return { answer: message };
      if (
        /label|timeout|jitter|paused_reason|pause_after_failures|max_runs|ends_at|max_run_tokens|daily_budget_micros/.test(
          message,
        )
      ) {
        return { controls: message };
      }
      if (/^name\b/.test(message)) return { name: message };
      if (/^prompt\b|prompt must/.test(message)) return { prompt: message };
      if (/description/.test(message)) return { description: message };
      if (/timezone/.test(message)) return { timezone: message };
      if (/schedule/.test(message)) return { schedule: message };
      return { form: message };
    default:
      return { form: message };
  }
}
