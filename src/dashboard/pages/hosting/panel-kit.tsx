import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { HttpError } from '../../api.ts';

/** A refusal as a form shows it: the message, and the request value at fault if the API named one. */
export interface Refusal {
  message: string;
  field?: string;
}

/**
 * One call of a tab at a time: `busy` while it runs (for the "…" button and aria-busy), then
 * the refusal if any. `run` answers the call's result, or undefined when it was refused.
 */
export function useCall() {
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const run = async <T,>(call: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setRefusal(null);
    try {
      return await call();
    } catch (err) {
      setRefusal({ message: (err as Error).message, field: err instanceof HttpError ? err.field : undefined });
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  /** The refusal's message when it names one of `fields`, else ''. */
  const errorOf = (...fields: string[]) =>
    refusal?.field !== undefined && fields.includes(refusal.field) ? refusal.message : '';
  /** The refusal's message when no field of the form (`shown`) carries it. */
  const formError = (...shown: string[]) =>
    refusal && !(refusal.field !== undefined && shown.includes(refusal.field)) ? refusal.message : '';
  return { busy, refusal, run, errorOf, formError, clear: () => setRefusal(null) };
}

/**
 * A labelled text input with its hint, or its error in place of the hint (aria-invalid and
 * aria-describedby point at whichever is shown).
 */
export function TextField(props: {
  id: string;
  label: string;
  value: string;
  onInput(value: string): void;
  error?: string;
  hint?: ComponentChildren;
  placeholder?: string;
  mono?: boolean;
  /** Typed hidden, and offered to a password manager as a new password. */
  password?: boolean;
}) {
  const described = props.error ? `${props.id}-error` : props.hint ? `${props.id}-hint` : undefined;
  const inputProps = {
    id: props.id,
    class: props.mono ? 'mono' : undefined,
    value: props.value,
    placeholder: props.placeholder,
    spellcheck: false,
    'aria-invalid': props.error ? ('true' as const) : undefined,
    'aria-describedby': described,
    onInput: (e: Event) => props.onInput((e.currentTarget as HTMLInputElement).value),
  };
  return (
    <label for={props.id}>
      {props.label}
      {props.password ? (
        <input type="password" {...inputProps} autocomplete="new-password" />
      ) : (
        <input type="text" {...inputProps} autocomplete="off" />
      )}
      {props.error ? (
        <span id={`${props.id}-error`} class="error field-error">
          {props.error}
        </span>
      ) : (
        props.hint && (
          <span id={`${props.id}-hint`} class="muted small">
            {props.hint}
          </span>
        )
      )}
    </label>
  );
}

/** A status line under a form or a list: what was done (ok) or what went wrong (error). */
export function Outcome(props: { error?: string; done?: string }) {
  return (
    <p role="status" class={props.error ? 'error' : 'ok'}>
      {props.error || props.done}
    </p>
  );
}

/** Bytes as a person reads them: 588 B, 12.4 KB, 3.1 MB, 10 GB. */
export function bytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}
