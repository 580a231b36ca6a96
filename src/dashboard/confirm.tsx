import { useId, useRef } from 'preact/hooks';

const reasonId = (label: string) => `why-${label.toLowerCase().replace(/\W+/g, '-')}`;

/**
 * A disabled button's attributes: the reason as tooltip (title) and as its accessible
 * description, so a screen reader says why it cannot be pressed, not just that it cannot.
 */
export function disabledProps(label: string, reason: string | null | undefined) {
  return reason ? { disabled: true, title: reason, 'aria-describedby': reasonId(label) } : { disabled: false };
}

/** The text a disabled button's aria-describedby points at (visually hidden: the title shows it on hover). */
export function DisabledReason(props: { label: string; reason: string | null | undefined }) {
  return props.reason ? (
    <span id={reasonId(props.label)} class="visually-hidden">
      {props.reason}
    </span>
  ) : null;
}

/**
 * A destructive action: a red `danger` button that opens a modal <dialog> asking to confirm.
 * Cancel (focused first, and Escape) closes it with nothing done.
 */
export function ConfirmButton(props: {
  label: string;
  question: string;
  detail: string;
  confirmLabel: string;
  onConfirm(): unknown;
  /** Why the action is not possible now: the button is disabled and says so (title and description). */
  disabledReason?: string | null;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  // The dialog is named by its question, so a screen reader (and a test) finds it by that.
  const titleId = useId();
  return (
    <>
      <button
        type="button"
        class="danger"
        onClick={() => dialog.current?.showModal()}
        {...disabledProps(props.label, props.disabledReason)}
      >
        {props.label}
      </button>
      <DisabledReason label={props.label} reason={props.disabledReason} />
      <dialog ref={dialog} class="confirm" aria-labelledby={titleId}>
        <h2 id={titleId}>{props.question}</h2>
        <p>{props.detail}</p>
        <div class="actions">
          <button type="button" class="secondary" autofocus onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button
            type="button"
            class="danger solid"
            onClick={() => {
              dialog.current?.close();
              void props.onConfirm();
            }}
          >
            {props.confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}
