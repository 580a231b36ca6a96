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

/** The way back from a page to the list it belongs to, above the page's heading. */
export function BackLink(props: { href: string; label: string }) {
  return (
    <p>
      <Link href={props.href}>{`← ${props.label}`}</Link>
    </p>
  );
}

/** A page whose data could not be read: the way back, the heading and what went wrong. */
export function PageFailed(props: { back: ComponentChildren; title: string; error: string }) {
  return (
    <div>
      {props.back}
      <h1>{props.title}</h1>
      <p class="error">{props.error}</p>
    </div>
  );
}
