import { render, type JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  dash,
  HttpError,
  loadSession,
  onSessionEnded,
  liveStatus,
  onLiveStatus,
  startLive,
  stopLive,
  type SessionState,
} from './api.ts';
import { Link, navigate, useLocation } from './router.tsx';
import { MainNav, MenuButton } from './nav.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { Overview } from './pages/overview.tsx';
import { ServerPage } from './pages/server.tsx';
import { Servers } from './pages/servers.tsx';
import { OrderServer } from './pages/order-server.tsx';
import { Keys } from './pages/keys.tsx';
import { Apps } from './pages/apps.tsx';
import { Device } from './pages/device.tsx';
import { Webhooks } from './pages/webhooks.tsx';
import { EventFeed } from './pages/events.tsx';
import { Billing } from './pages/billing.tsx';
import { HostingList } from './pages/hosting/list.tsx';
import { HostingAccountPage } from './pages/hosting/account.tsx';
import { PoolList } from './pages/pools/list.tsx';
import { BuyPool } from './pages/pools/new.tsx';
import { PoolPage } from './pages/pools/pool.tsx';
import { MailDomains } from './pages/mail/list.tsx';
import { MailDomainPage } from './pages/mail/domain.tsx';
import { DomainList } from './pages/domains/list.tsx';
import { DomainPage } from './pages/domains/domain.tsx';
import { TicketList } from './pages/tickets/list.tsx';
import { NewTicket } from './pages/tickets/new.tsx';
import { TicketPage } from './pages/tickets/ticket.tsx';
import { Settings } from './pages/settings/settings.tsx';
import { SudoPrompt } from './sudo.tsx';
import './style.css';

function LiveBadge() {
  const [s, setS] = useState(liveStatus());
  useEffect(() => onLiveStatus(setS), []);
  return (
    <span class={`live live-${s}`} data-testid="live-status">
      {s === 'live' ? '● live' : s === 'connecting' ? '○ connecting' : '○ offline'}
    </span>
  );
}

function App() {
  const { path, query } = useLocation();
  const [session, setSession] = useState<SessionState | null>(null);
  // The phone's navigation panel: closed again by every move to another page.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [path]);

  useEffect(() => {
    loadSession().then(setSession, () => setSession({ signedIn: false, csrfToken: '' }));
  }, []);
  useEffect(() => {
    if (session?.signedIn) startLive();
  }, [session?.signedIn]);
  // Signed out elsewhere (another tab, a password change, a session ended in settings): the sign-in form.
  useEffect(
    () =>
      onSessionEnded(() => {
        stopLive();
        void loadSession().then(setSession);
      }),
    [],
  );

  if (!session) return <div class="loading">Loading…</div>;

  // A session from a sign-in link may still sign in with the password (for keys, apps, devices).
  if (!session.signedIn || (path === '/sign-in' && session.passwordSignIn === false)) {
    return (
      <SignIn
        onSignedIn={(s) => {
          setSession(s);
          if (path === '/sign-in') navigate(query.get('next') ?? '/', true);
        }}
      />
    );
  }
  if (path === '/sign-in') navigate(query.get('next') ?? '/', true);

  const signOut = async () => {
    // 401: the session had already ended (expired, or signed out in another tab): signed out all the same.
    await dash('POST', '/sign-out', {}).catch((err: unknown) => {
      if (!(err instanceof HttpError && err.status === 401)) throw err;
    });
    stopLive();
    setSession(await loadSession());
    navigate('/sign-in', true);
  };

  let page: JSX.Element;
  const server = /^\/servers\/([\w-]+)$/.exec(path);
  const pool = /^\/pools\/([\w-]+)$/.exec(path);
  const hosting = /^\/hosting\/([\w-]+)(?:\/([\w-]+))?$/.exec(path);
  const mailDomain = /^\/mail\/(\d+)$/.exec(path);
  const domain = /^\/domains\/([\w-]+)$/.exec(path);
  const ticket = /^\/tickets\/([\w-]+)$/.exec(path);
  if (path === '/' || path === '/sign-in') page = <Overview />;
  else if (path === '/servers') page = <Servers />;
  else if (path === '/servers/new') page = <OrderServer />;
  else if (server) page = <ServerPage id={server[1]} />;
  else if (path === '/pools') page = <PoolList />;
  else if (path === '/pools/new') page = <BuyPool />;
  else if (pool) page = <PoolPage id={pool[1]} />;
  else if (path === '/hosting') page = <HostingList />;
  else if (hosting) page = <HostingAccountPage id={hosting[1]} tab={hosting[2]} />;
  else if (path === '/mail') page = <MailDomains />;
  else if (mailDomain) page = <MailDomainPage id={mailDomain[1]} />;
  else if (path === '/domains') page = <DomainList />;
  else if (domain) page = <DomainPage id={domain[1]} />;
  else if (path === '/tickets') page = <TicketList />;
  else if (path === '/tickets/new') page = <NewTicket />;
  else if (ticket) page = <TicketPage id={ticket[1]} />;
  else if (path === '/keys') page = <Keys passwordSignIn={session.passwordSignIn !== false} />;
  else if (path === '/apps') page = <Apps />;
  else if (path === '/oauth/device') page = <Device initialCode={query.get('user_code') ?? ''} />;
  else if (path === '/webhooks') page = <Webhooks />;
  else if (path === '/billing') page = <Billing />;
  else if (path === '/events') page = <EventFeed />;
  else if (path === '/settings' || path === '/account')
    page = <Settings passwordSignIn={session.passwordSignIn !== false} />;
  else
    page = (
      <section>
        <h1>Not found</h1>
        <p>No page at {path}.</p>
      </section>
    );

  return (
    <div class="shell">
      <header class="top">
        <Link href="/" class="brand">
          ☁ Cloud account
        </Link>
        <LiveBadge />
        <div class="who">
          <span data-testid="account-email">{session.account?.email}</span>
          <button type="button" class="link" onClick={signOut}>
            Sign out
          </button>
        </div>
        <MenuButton open={menuOpen} onToggle={setMenuOpen} />
      </header>
      <div class="frame">
        <MainNav path={path} open={menuOpen} />
        <main>{page}</main>
      </div>
      <SudoPrompt />
    </div>
  );
}

render(<App />, document.getElementById('app')!);
