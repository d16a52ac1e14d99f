import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { deniedNow, type Scope } from '../session';

// Small building blocks shared by the pages: alerts, fields, a confirmation dialog, a pager.

export function Alert({
  message,
  tone = 'error',
}: {
  message: string | null;
  tone?: 'error' | 'ok';
}) {
  if (!message) return null;
  return (
    <p class={`alert alert-${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      {message}
    </p>
  );
}

export function Field(props: {
  id: string;
  label: string;
  error?: string | undefined;
  hint?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <div class={`field${props.error ? ' field-invalid' : ''}`}>
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint ? (
        <div class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </div>
      ) : null}
      {props.error ? (
        <p class="field-error" id={`${props.id}-error`} role="alert">
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

/** aria attributes tying an input to its hint and error. */
export function describedBy(id: string, error: string | undefined, hint = false) {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return {
    'aria-invalid': error ? ('true' as const) : undefined,
    'aria-describedby': ids || undefined,
  };
}

/** A button that asks first, in a modal dialog (focus trapped, Escape cancels). */
export function ConfirmButton(props: {
  label: string;
  question: string;
  confirmLabel?: string;
  danger?: boolean;
  disabled?: boolean;
  onConfirm: () => Promise<void> | void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    try {
      await props.onConfirm();
    } finally {
      setBusy(false);
      dialog.current?.close();
    }
  };
  return (
    <>
      <button
        type="button"
        class={props.danger ? 'danger' : ''}
        disabled={props.disabled}
        onClick={() => dialog.current?.showModal()}
      >
        {props.label}
      </button>
      <dialog ref={dialog} aria-label={props.question}>
        <p>{props.question}</p>
        <div class="actions">
          <button
            type="button"
            class={props.danger ? 'danger' : 'primary'}
            disabled={busy}
            onClick={() => void confirm()}
          >
            {props.confirmLabel ?? props.label}
          </button>
          <button type="button" onClick={() => dialog.current?.close()} autofocus>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}

/** Says, once per page, why its write controls are hidden: nothing when the session may write. */
export function ReadOnlyNote({ scope, children }: { scope: Scope; children: ComponentChildren }) {
  const denied = deniedNow(scope);
  if (!denied) return null;
  return (
    <p class="muted" role="note" data-testid="read-only-note">
      {denied} {children}
    </p>
  );
}

export function Pager(props: {
  page: number;
  hasNext: boolean;
  onPage: (page: number) => void;
  label: string;
  summary?: string;
}) {
  if (props.page === 0 && !props.hasNext)
    return props.summary ? <p class="muted">{props.summary}</p> : null;
  return (
    <nav class="pager" aria-label={props.label}>
      <button
        type="button"
        disabled={props.page === 0}
        onClick={() => props.onPage(props.page - 1)}
      >
        Previous
      </button>
      <span aria-live="polite">
        Page {props.page + 1}
        {props.summary ? ` · ${props.summary}` : ''}
      </span>
      <button type="button" disabled={!props.hasNext} onClick={() => props.onPage(props.page + 1)}>
        Next
      </button>
    </nav>
  );
}

/** Calls fn now and every intervalMs while the tab is visible; stops on unmount. */
export function usePoll(fn: () => Promise<void> | void, intervalMs: number, deps: unknown[]) {
  useEffect(() => {
    let stopped = false;
    let timer: number | undefined;
    const tick = async () => {
      if (stopped) return;
      if (document.visibilityState === 'visible') {
        try {
          await fn();
        } catch {
          // The page shows its own error state; polling goes on.
        }
      }
      if (!stopped) timer = window.setTimeout(() => void tick(), intervalMs);
    };
    void tick();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
  }, deps);
}

export function StatusBadge({
  status,
  kind,
}: {
  status: string;
  kind?: string | null | undefined;
}) {
  return (
    <span class={`badge badge-${status}`}>
      {status}
      {kind ? <span class="badge-kind"> · {kind}</span> : null}
    </span>
  );
}
