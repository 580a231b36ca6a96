import { useState } from 'preact/hooks';
import { dash, type SessionState } from '../api.ts';

export function SignIn(props: { onSignedIn(s: SessionState): void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      const signedIn = await dash<SessionState>('POST', '/sign-in', { email, password });
      // The OAuth consent page is the server's, not a route of this app: load it.
      const next = new URLSearchParams(location.search).get('next');
      if (next?.startsWith('/oauth/authorize?')) return location.assign(next);
      props.onSignedIn(signedIn);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="signin">
      <form class="card" onSubmit={submit} method="post" action="/sign-in">
        <h1>Sign in</h1>
        <p class="muted">Your cloud account dashboard.</p>
        <label>
          E-mail
          <input
            name="email"
            type="email"
            autocomplete="username"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </div>
  );
}
