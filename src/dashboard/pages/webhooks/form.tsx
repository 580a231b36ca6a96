import { useState } from 'preact/hooks';
import { EVENT_TYPES } from '../../../events/catalog.ts';
import { HttpError } from '../../api.ts';

/** What webhookCreate and webhookUpdate take of a subscription (besides pausing). */
export interface WebhookFields {
  url: string;
  events: string[];
  description: string;
}

const KINDS = Object.keys(EVENT_TYPES);
/** The fields a refusal can name; any other refusal shows under the form. */
const FIELDS = ['url', 'events', 'description'];
const DESCRIPTION_MAX = 500;

/**
 * A subscription's URL, event kinds and note, for creating one and for editing it. The API
 * judges the values (an https URL on a public address, kinds the session can read); its
 * refusal is shown beside the field it names.
 */
export function WebhookForm(props: {
  /** Makes the ids of this form's fields unique on the page. */
  idPrefix: string;
  initial: WebhookFields;
  submitLabel: string;
  busyLabel: string;
  onSubmit(values: WebhookFields): Promise<void>;
  /** Closes the form with nothing changed (an editor has one; the new-subscription form does not). */
  onCancel?: () => void;
  testid: string;
}) {
  const [url, setUrl] = useState(props.initial.url);
  const [all, setAll] = useState(props.initial.events.includes('*'));
  const [kinds, setKinds] = useState(new Set(props.initial.events.filter((e) => e !== '*')));
  const [description, setDescription] = useState(props.initial.description);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<{ field?: string; message: string } | null>(null);
  const id = (field: string) => `${props.idPrefix}-${field}`;

  const submit = async (e: Event) => {
    e.preventDefault();
    setRefusal(null);
    setBusy(true);
    try {
      await props.onSubmit({ url: url.trim(), events: all ? ['*'] : KINDS.filter((k) => kinds.has(k)), description });
    } catch (err) {
      setRefusal({ field: err instanceof HttpError ? err.field : undefined, message: (err as Error).message });
    } finally {
      setBusy(false);
    }
  };
  const errorOf = (field: string) =>
    refusal?.field === field ? (
      <span id={id(`${field}-error`)} class="error field-error">
        {refusal.message}
      </span>
    ) : null;
  const invalid = (field: string) =>
    refusal?.field === field ? { 'aria-invalid': 'true' as const, 'aria-describedby': id(`${field}-error`) } : {};

  return (
    <form onSubmit={submit} aria-busy={busy} noValidate data-testid={props.testid}>
      <label>
        Endpoint URL
        <input
          type="url"
          name="url"
          placeholder="https://example.com/hooks"
          autocomplete="off"
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
          {...invalid('url')}
        />
        {errorOf('url')}
      </label>
      <fieldset class="kinds-field" aria-describedby={refusal?.field === 'events' ? id('events-error') : undefined}>
        <legend>Event kinds</legend>
        <label class="check">
          <input type="checkbox" name="all" checked={all} onChange={(e) => setAll(e.currentTarget.checked)} />
          All kinds, including ones added later (*)
        </label>
        {!all && (
          <div class="scopes">
            {KINDS.map((k) => (
              <label key={k} class="check">
                <input
                  type="checkbox"
                  name="events"
                  value={k}
                  checked={kinds.has(k)}
                  onChange={(e) => {
                    const next = new Set(kinds);
                    if (e.currentTarget.checked) next.add(k);
                    else next.delete(k);
                    setKinds(next);
                  }}
                />
                <span class="mono small">{k}</span>
              </label>
            ))}
          </div>
        )}
        {errorOf('events')}
      </fieldset>
      <label>
        Description (optional)
        <input
          name="description"
          maxLength={DESCRIPTION_MAX}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
          {...invalid('description')}
        />
        {errorOf('description')}
      </label>
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? props.busyLabel : props.submitLabel}
        </button>
        {props.onCancel && (
          <button type="button" class="secondary" disabled={busy} onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
      {refusal && !FIELDS.includes(refusal.field ?? '') && (
        <p class="error" role="alert">
          {refusal.message}
        </p>
      )}
    </form>
  );
}
