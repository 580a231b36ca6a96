import { useEffect, useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { DisabledReason, disabledProps } from '../../confirm.tsx';
import { Outcome, useCall } from './panel-kit.tsx';
import { graphql, type ResultOf } from '../../graphql.ts';

const PHP_READ = graphql('query($id: ID!) { hostingAccount(id: $id) { phpVersion phpVersionsOffered } }');
const PHP_SET = graphql(
  'mutation($id: ID!, $v: String!) { hostingPhpVersionSet(id: $id, phpVersion: $v) { phpVersion availableVersions } }',
);
type PhpVersion = ResultOf<typeof PHP_SET>['hostingPhpVersionSet'];

/** PHP tab: the version the site runs and the versions its plan offers. */
export function PhpPanel(props: { id: string }) {
  const [php, setPhp] = useState<PhpVersion | null>(null);
  const [loadError, setLoadError] = useState('');
  const [choice, setChoice] = useState('');
  const [done, setDone] = useState('');
  const call = useCall();

  useEffect(() => {
    let alive = true;
    gql(PHP_READ, { id: props.id }).then(
      ({ hostingAccount: h }) => {
        if (!alive) return;
        setPhp({ phpVersion: h.phpVersion, availableVersions: h.phpVersionsOffered });
        setChoice(h.phpVersion);
      },
      (err: Error) => alive && setLoadError(err.message),
    );
    return () => {
      alive = false;
    };
  }, [props.id]);

  const submit = async (e: Event) => {
    e.preventDefault();
    setDone('');
    const r = await call.run(() => gql(PHP_SET, { id: props.id, v: choice }));
    if (r) {
      setPhp(r.hostingPhpVersionSet);
      setDone(`The site now runs PHP ${r.hostingPhpVersionSet.phpVersion}.`);
    }
  };

  const fieldError = call.errorOf('phpVersion');
  const why = call.busy
    ? 'The switch is under way.'
    : choice === php?.phpVersion
      ? 'The site runs this version already: choose another.'
      : null;
  return (
    <section class="card" data-testid="hosting-php">
      <h2>PHP</h2>
      {loadError ? (
        <p class="muted">Not available: {loadError}</p>
      ) : !php ? (
        <p class="muted">Loading…</p>
      ) : (
        <form onSubmit={submit} aria-busy={call.busy} noValidate>
          <p>
            The site runs PHP <strong data-testid="php-current">{php.phpVersion}</strong>.
          </p>
          <label>
            PHP version
            <select
              value={choice}
              aria-invalid={fieldError ? 'true' : undefined}
              aria-describedby={fieldError ? 'php-version-error' : undefined}
              onChange={(e) => setChoice(e.currentTarget.value)}
            >
              {php.availableVersions.map((v) => (
                <option key={v} value={v}>
                  PHP {v}
                  {v === php.phpVersion ? ' (current)' : ''}
                </option>
              ))}
            </select>
            {fieldError && (
              <span id="php-version-error" class="error field-error">
                {fieldError}
              </span>
            )}
          </label>
          <button type="submit" {...disabledProps('Switch version', why)}>
            {call.busy ? 'Switching…' : 'Switch version'}
          </button>
          <DisabledReason label="Switch version" reason={why} />
          <Outcome error={call.formError('phpVersion')} done={done} />
        </form>
      )}
    </section>
  );
}
