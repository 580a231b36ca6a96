import { useState } from 'preact/hooks';
import { useLive } from '../../live-query.tsx';
import { NotificationsForm, type Profile, PROFILE_QUERY, ProfileForm } from './profile.tsx';
import { PasswordForm } from './password.tsx';
import { Sessions } from './sessions.tsx';
import { SshKeys } from './ssh-keys.tsx';

const SECTIONS = [
  ['profile', 'Profile'],
  ['password', 'Password'],
  ['sessions', 'Sessions'],
  ['ssh-keys', 'SSH keys'],
  ['notifications', 'Notifications'],
] as const;

/**
 * /settings: the account holder's own settings, one section each. The password and the sessions
 * are for a session signed in with the password (the API refuses a sign-in link's).
 */
export function Settings(props: { passwordSignIn: boolean }) {
  const state = useLive(PROFILE_QUERY, []);
  const [profile, setProfile] = useState<Profile | null>(null);
  const [sessionsKey, setSessionsKey] = useState(0);
  const shown = profile ?? state.data?.account;
  const needsPassword = (
    <p class="muted">
      This session was opened from a sign-in link: <a href="/sign-in?next=/settings">sign in with your password</a> to
      change it.
    </p>
  );
  return (
    <div class="settings">
      <h1>Settings</h1>
      <nav aria-label="Settings sections" class="section-links">
        {SECTIONS.map(([id, label]) => (
          <a key={id} href={`#${id}`}>
            {label}
          </a>
        ))}
      </nav>
      <section class="card" id="profile" aria-labelledby="profile-title">
        <h2 id="profile-title">Profile</h2>
        {state.error ? (
          <p class="error">{state.error}</p>
        ) : shown ? (
          <ProfileForm profile={shown} onSaved={setProfile} passwordSignIn={props.passwordSignIn} />
        ) : (
          <p class="muted">Loading…</p>
        )}
      </section>
      <section class="card" id="password" aria-labelledby="password-title">
        <h2 id="password-title">Password</h2>
        {props.passwordSignIn ? <PasswordForm onChanged={() => setSessionsKey((n) => n + 1)} /> : needsPassword}
      </section>
      <section class="card" id="sessions" aria-labelledby="sessions-title">
        <h2 id="sessions-title">Sessions</h2>
        {props.passwordSignIn ? <Sessions reloadKey={sessionsKey} /> : needsPassword}
      </section>
      <section class="card" id="ssh-keys" aria-labelledby="ssh-keys-title">
        <h2 id="ssh-keys-title">SSH keys</h2>
        <SshKeys />
      </section>
      <section class="card" id="notifications" aria-labelledby="notifications-title">
        <h2 id="notifications-title">Notifications</h2>
        {shown ? <NotificationsForm profile={shown} onSaved={setProfile} /> : <p class="muted">Loading…</p>}
      </section>
    </div>
  );
}
