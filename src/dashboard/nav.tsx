import { useEffect, useRef } from 'preact/hooks';
import { AREAS, NAV_GROUPS } from './areas.ts';
import { Link } from './router.tsx';

/** Whether the link to `href` is the page shown (or the list a detail page belongs to). */
const isCurrent = (href: string, path: string) =>
  href === '/'
    ? path === '/'
    : path === href || path.startsWith(`${href}/`) || (href === '/settings' && path === '/account');

function NavLink(props: { href: string; label: string; path: string }) {
  const current = isCurrent(props.href, props.path);
  return (
    <Link href={props.href} class={current ? 'active' : undefined} current={current}>
      {props.label}
    </Link>
  );
}

/**
 * The console's navigation: Overview, then the areas by group (a group of one area is its link
 * alone). A column beside the page on a wide screen; on a phone it is hidden behind the header's
 * Menu button (MenuButton) and opens as a panel under the header.
 */
export function MainNav(props: { path: string; open: boolean }) {
  return (
    <nav id="main-nav" class={props.open ? 'side open' : 'side'} aria-label="Console">
      <ul class="nav-list">
        <li>
          <NavLink href="/" label="Overview" path={props.path} />
        </li>
        {NAV_GROUPS.map((group) => {
          const areas = AREAS.filter((a) => a.group === group);
          if (areas.length === 1 && areas[0].label === group)
            return (
              <li key={group}>
                <NavLink href={areas[0].href} label={areas[0].label} path={props.path} />
              </li>
            );
          const id = `nav-${group.replace(/\W+/g, '-').toLowerCase()}`;
          return (
            <li key={group} class="nav-group">
              <span id={id} class="nav-group-name">
                {group}
              </span>
              <ul aria-labelledby={id}>
                {areas.map((a) => (
                  <li key={a.href}>
                    <NavLink href={a.href} label={a.label} path={props.path} />
                  </li>
                ))}
              </ul>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

/**
 * The phone's way to the navigation: a disclosure button (shown on narrow screens only) that opens
 * and closes it. Escape closes it and gives the button its focus back.
 */
export function MenuButton(props: { open: boolean; onToggle(open: boolean): void }) {
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!props.open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      props.onToggle(false);
      button.current?.focus();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [props.open]);
  return (
    <button
      ref={button}
      type="button"
      class="menu-button"
      aria-expanded={props.open ? 'true' : 'false'}
      aria-controls="main-nav"
      onClick={() => props.onToggle(!props.open)}
    >
      <span aria-hidden="true">☰</span> Menu
    </button>
  );
}
