import { useState } from 'preact/hooks';

/** The copy shortcut of the reader's keyboard. */
const copyKeys = () => (/Mac|iPhone|iPad/.test(navigator.platform) ? '⌘C' : 'Ctrl+C');

/**
 * A secret shown once, with a Copy button beside it. When the browser refuses the clipboard
 * (no permission, an old browser), the text is selected instead and the status says which keys
 * copy it, so the secret is never lost for want of a clipboard.
 */
export function SecretWithCopy(props: { value: string; id: string; testid?: string }) {
  // The status of the value it was said of: a new secret in the same place starts with none.
  const [said, setSaid] = useState({ of: '', text: '' });
  const setStatus = (text: string) => setSaid({ of: props.value, text });
  const status = said.of === props.value ? said.text : '';
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
      setStatus('Copied');
    } catch {
      const el = document.getElementById(props.id);
      const selection = window.getSelection();
      if (el && selection) {
        const range = document.createRange();
        range.selectNodeContents(el);
        selection.removeAllRanges();
        selection.addRange(range);
      }
      setStatus(`Press ${copyKeys()} to copy`);
    }
  };
  return (
    <div class="secret-copy">
      <code id={props.id} class="secret" data-testid={props.testid}>
        {props.value}
      </code>
      <button type="button" class="secondary" onClick={copy} aria-describedby={`${props.id}-status`}>
        Copy
      </button>
      <span id={`${props.id}-status`} role="status" class="small">
        {status}
      </span>
    </div>
  );
}
