import { useRef } from 'preact/hooks';

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
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <>
      <button type="button" class="danger" onClick={() => dialog.current?.showModal()}>
        {props.label}
      </button>
      <dialog ref={dialog} class="confirm">
        <h2>{props.question}</h2>
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
