import { useState } from 'preact/hooks';

/**
 * A value to paste elsewhere (a DNS record), in full, with a Copy button. Where the clipboard is
 * refused, the value is selected instead so the person can copy it with the keyboard.
 */
export function Copyable(props: { value: string; what: string }) {
  const [said, setSaid] = useState('');
  const copy = async (e: Event) => {
    try {
      await navigator.clipboard.writeText(props.value);
      setSaid('Copied');
    } catch {
      const code = (e.currentTarget as HTMLElement).previousElementSibling;
      if (code) getSelection()?.selectAllChildren(code);
      setSaid('Selected: press Ctrl+C');
    }
  };
  return (
    <span class="copyable">
      <code>{props.value}</code>
      <button type="button" onClick={copy} aria-label={`Copy ${props.what}`}>
        Copy
      </button>
      <span role="status" class="small ok">
        {said}
      </span>
    </span>
  );
}
