import { useState } from 'preact/hooks';

/** The copy shortcut of the reader's keyboard. */
const copyKeys = () => (/Mac|iPhone|iPad/.test(navigator.platform) ? '⌘C' : 'Ctrl+C');

/**
 * Copies `value`; when the browser refuses the clipboard (no permission, an old browser) the
 * element showing it is selected instead, so the keyboard copies it. Answers what to tell the reader.
 */
async function copyOrSelect(value: string, shown: Element | null): Promise<string> {
  try {
    await navigator.clipboard.writeText(value);
    return 'Copied';
  } catch {
    if (shown) getSelection()?.selectAllChildren(shown);
    return `Press ${copyKeys()} to copy`;
  }
}

/** A Copy button's state: the status said of the value it was said of (a new value starts with none). */
function useCopy(value: string) {
  const [said, setSaid] = useState({ of: '', text: '' });
  return {
    status: said.of === value ? said.text : '',
    copy: async (shown: Element | null) => setSaid({ of: value, text: await copyOrSelect(value, shown) }),
  };
}

/** A secret shown once, with a Copy button beside it: the secret is never lost for want of a clipboard. */
export function SecretWithCopy(props: { value: string; id: string; testid?: string }) {
  const { status, copy } = useCopy(props.value);
  return (
    <div class="secret-copy">
      <code id={props.id} class="secret" data-testid={props.testid}>
        {props.value}
      </code>
      <button
        type="button"
        class="secondary"
        onClick={() => copy(document.getElementById(props.id))}
        aria-describedby={`${props.id}-status`}
      >
        Copy
      </button>
      <span id={`${props.id}-status`} role="status" class="small">
        {status}
      </span>
    </div>
  );
}

/** A value to paste elsewhere by hand (a DNS record), in full, with a button that copies it. */
export function Copyable(props: { value: string; what: string }) {
  const { status, copy } = useCopy(props.value);
  return (
    <span class="copyable">
      <code>{props.value}</code>
      <button
        type="button"
        onClick={(e) => copy((e.currentTarget as HTMLElement).previousElementSibling)}
        aria-label={`Copy ${props.what}`}
      >
        Copy
      </button>
      <span role="status" class="small ok">
        {status}
      </span>
    </span>
  );
}
