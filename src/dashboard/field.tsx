import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { HttpError } from './api.ts';

/** What ties an input to its label, hint and error (spread onto the <input>, <select> or <textarea>). */
interface FieldAttrs {
  id: string;
  'aria-invalid'?: 'true';
  'aria-describedby'?: string;
}

/**
 * A form field: its label, the control, a hint and, under it, the error that concerns it. The
 * control's description names the hint and the error, so a screen reader says why it was refused.
 */
export function Field(props: {
  label: string;
  id: string;
  error?: string;
  hint?: ComponentChildren;
  children: (attrs: FieldAttrs) => JSX.Element;
}) {
  const hintId = `${props.id}-hint`;
  const errorId = `${props.id}-error`;
  const describedBy = [props.hint ? hintId : '', props.error ? errorId : ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children({
        id: props.id,
        'aria-invalid': props.error ? 'true' : undefined,
        'aria-describedby': describedBy || undefined,
      })}
      {props.hint && (
        <span id={hintId} class="muted small hint">
          {props.hint}
        </span>
      )}
      {props.error && (
        <span id={errorId} class="error field-error">
          {props.error}
        </span>
      )}
    </div>
  );
}

/** Errors by the input they concern; `form` is one that concerns the request as a whole. */
export type FormErrors<F extends string> = Partial<Record<F | 'form', string>>;

/**
 * A refused mutation's error placed beside the field the API names (`extensions.field`, in
 * GraphQL's names; an item of a list is named `list[2]`), or on the form when it names none of them.
 */
export function errorsOf<F extends string>(err: unknown, fields: readonly F[]): FormErrors<F> {
  const message = (err as Error).message;
  const named = err instanceof HttpError && err.field ? err.field.split(/[[.]/, 1)[0] : undefined;
  const field = fields.find((f) => f === named);
  return (field ? { [field]: message } : { form: message }) as FormErrors<F>;
}

/**
 * A form's one request at a time: `busy` while it runs (for the "…" button and aria-busy), then
 * its refusal placed by errorsOf among `fields`. `setErrors` is for what the form checks itself.
 */
export function useFormRequest<F extends string>(fields: readonly F[]) {
  const [errors, setErrors] = useState<FormErrors<F>>({});
  const [busy, setBusy] = useState(false);
  const send = async (request: () => Promise<void>) => {
    setErrors({});
    setBusy(true);
    try {
      await request();
    } catch (err) {
      setErrors(errorsOf(err, fields));
    } finally {
      setBusy(false);
    }
  };
  return { errors, setErrors, busy, send };
}

/** The refusal of a form that concerns no one field, announced where the form ends. */
/**
 * A form field's value, seeded from what the server says and seeded again when that changes — a
 * live reload, another form's save — unless the person has typed in the field since: what they
 * typed is theirs until they save or leave. `set` after a save shows what was saved.
 */
export function useSeeded(seed: string): [value: string, set: (value: string) => void] {
  const [value, setValue] = useState(seed);
  const seeded = useRef(seed);
  useEffect(() => {
    setValue((current) => (current === seeded.current ? seed : current));
    seeded.current = seed;
  }, [seed]);
  return [value, setValue];
}

export function FormAlert(props: { error?: string }) {
  return props.error ? (
    <p role="alert" class="error">
      {props.error}
    </p>
  ) : null;
}
