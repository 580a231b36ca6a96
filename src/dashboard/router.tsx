import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** A tiny history router: the server answers every dashboard path with the app. */
export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function useLocation(): { path: string; query: URLSearchParams } {
  const [loc, setLoc] = useState(() => ({ path: location.pathname, query: new URLSearchParams(location.search) }));
  useEffect(() => {
    const update = () => setLoc({ path: location.pathname, query: new URLSearchParams(location.search) });
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  return loc;
}

export function Link(props: {
  href: string;
  class?: string;
  /** Marks the link to the page (or tab) being shown. */
  current?: boolean;
  children: ComponentChildren;
}) {
  return (
    <a
      href={props.href}
      class={props.class}
      aria-current={props.current ? 'page' : undefined}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(props.href);
      }}
    >
      {props.children}
    </a>
  );
}
