import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, type Skill, type SkillSummary } from '../api';
import { Alert, ConfirmButton, Field, ReadOnlyNote } from '../components/ui';
import { browserZone, formatInZone } from '../format';
import { navigate } from '../router';
import { canNow } from '../session';

const TEMPLATE = `---
name: daily-summary
description: When and how to use this skill, in one or two sentences.
---
# Daily summary

1. ...
`;

/** Tenants: the list of skills. */
export function SkillsPage() {
  const [skills, setSkills] = useState<SkillSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<{ data: SkillSummary[] }>('GET', '/v1/skills')
      .then((page) => setSkills(page.data))
      .catch((err: unknown) => setError(messageOf(err)));
  }, []);
  return (
    <section>
      <div class="page-head">
        <h1>Skills</h1>
        {canNow('jobs:write') ? (
          <a class="button primary" href="/skills/new">
            New skill
          </a>
        ) : null}
      </div>
      <p class="muted">
        Instructions the agent reads when a task calls for them: each run lists the skills'
        descriptions, and a job can preload some.
      </p>
      <Alert message={error} />
      <div class="table-wrap">
        <table class="stack">
          <caption class="sr-only">Skills</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Description</th>
              <th scope="col">Size</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {(skills ?? []).map((skill) => (
              <tr key={skill.name}>
                <td data-label="Name">
                  <a href={`/skills/${encodeURIComponent(skill.name)}`}>{skill.name}</a>
                </td>
                <td data-label="Description">{skill.description}</td>
                <td data-label="Size">{skill.size_bytes} B</td>
                <td data-label="Updated">{formatInZone(skill.updated_at, browserZone)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {skills?.length === 0 ? <p class="muted">No skills yet.</p> : null}
      </div>
    </section>
  );
}

/** Tenants: the editor of one skill (new without a name). */
export function SkillEditorPage({ name }: { name?: string }) {
  const [content, setContent] = useState(name ? '' : TEMPLATE);
  const [loaded, setLoaded] = useState(!name);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (!name) return;
    api<Skill>('GET', `/v1/skills/${encodeURIComponent(name)}`)
      .then((skill) => {
        setContent(skill.content);
        setLoaded(true);
      })
      .catch((err: unknown) => setError(messageOf(err)));
  }, [name]);

  const save = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setSaved(false);
    const target = name ?? /^name:\s*(\S+)/m.exec(content)?.[1] ?? '';
    try {
      await api('PUT', `/v1/skills/${encodeURIComponent(target)}`, { content });
      setSaved(true);
      if (!name) navigate(`/skills/${encodeURIComponent(target)}`, true);
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const remove = async () => {
    try {
      await api('DELETE', `/v1/skills/${encodeURIComponent(name ?? '')}`);
      navigate('/skills');
    } catch (err) {
      setError(messageOf(err));
    }
  };

  const writable = canNow('jobs:write');
  return (
    <section>
      <p class="crumbs">
        <a href="/skills">← Skills</a>
      </p>
      <h1>{name ?? 'New skill'}</h1>
      <ReadOnlyNote scope="jobs:write">You can read the skill, not change it.</ReadOnlyNote>
      <Alert message={error} />
      {saved ? <p role="status">Saved.</p> : null}
      {loaded ? (
        <form class="card" onSubmit={(e) => void save(e)} noValidate>
          <Field
            id="skill-content"
            label="SKILL.md"
            hint="YAML front matter with name and description, then Markdown; at most 32 KB."
          >
            <textarea
              id="skill-content"
              class="mono"
              rows={20}
              spellcheck={false}
              value={content}
              readOnly={!writable}
              onInput={(e) => setContent(e.currentTarget.value)}
            />
          </Field>
          {writable ? (
            <div class="actions">
              <button type="submit" class="primary">
                Save
              </button>
              {name ? (
                <ConfirmButton
                  label="Delete"
                  danger
                  question={`Delete the skill ${name}? Jobs that preload it are told it is missing.`}
                  onConfirm={remove}
                />
              ) : null}
            </div>
          ) : null}
        </form>
      ) : null}
    </section>
  );
}
