import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { ConfirmButton, DisabledReason, disabledProps } from '../../confirm.tsx';
import { Section, useLive } from '../../live-query.tsx';
import { PUSH_HOOK_SCHEME, pushHookExample } from '../../../modules/hosting/push-hook-scheme.ts';
import { Outcome, useCall } from './panel-kit.tsx';
import { graphql, type ResultOf } from '../../graphql.ts';

/** What the git tab reads of the deployment, shared with the access sections. */
export const GIT_STATUS = graphql(`fragment GitStatus on HostingGitStatus {
  connected status repoUrl branch subdir commit { sha message } lastDeployedAt lastError webhookEnabled
}`);
export type GitStatus = ResultOf<typeof GIT_STATUS>;
const DEPLOY_KEY_QUERY = graphql('query($id: ID!) { hostingGitDeployKey(id: $id) { type publicKey fingerprint } }');
const WEBHOOK_QUERY = graphql('query($id: ID!) { hostingGitWebhook(id: $id) { enabled url } }');
const WEBHOOK_ENABLE = graphql('mutation($id: ID!) { hostingGitWebhookEnable(id: $id) { enabled url secret } }');
const WEBHOOK_DISABLE = graphql('mutation($id: ID!) { hostingGitWebhookDisable(id: $id) { enabled } }');
type Webhook = ResultOf<typeof WEBHOOK_ENABLE>['hostingGitWebhookEnable'];

/** The account's SSH deploy key, to add read-only to the repository, with a copy button. */
export function DeployKey(props: { id: string }) {
  const state = useLive(DEPLOY_KEY_QUERY, [], { id: props.id });
  const [copied, setCopied] = useState('');
  const copy = async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('Copied to the clipboard.');
    } catch {
      // No clipboard (an insecure origin, or permission refused): the key stays selectable.
      setCopied('Could not reach the clipboard: select the key and copy it.');
    }
  };
  return (
    <Section title="Deploy key" testid="git-deploy-key" state={state}>
      {({ hostingGitDeployKey: key }) => (
        <>
          <p class="muted small wrap-anywhere">
            Add this public key to the repository as a read-only deploy key. Fingerprint{' '}
            <span class="mono">{key.fingerprint}</span>.
          </p>
          <code class="secret" data-testid="deploy-public-key">
            {key.publicKey}
          </code>
          <button type="button" class="secondary" onClick={() => copy(key.publicKey)}>
            Copy key
          </button>
          <Outcome done={copied} />
        </>
      )}
    </Section>
  );
}

/**
 * Push-to-deploy. The secret is shown once, right after enabling; later the tab shows only the
 * URL (enabling again keeps the secret and shows it once more).
 */
export function PushWebhook(props: { id: string; git: GitStatus; onChange(): void }) {
  const state = useLive(
    WEBHOOK_QUERY,
    ['hosting.'],
    { id: props.id },
    // Read again when the status says it turned on or off (here, or by a disconnect).
    props.git.webhookEnabled ? 1 : 0,
  );
  const call = useCall();
  const [fresh, setFresh] = useState<Webhook | null>(null);
  const [done, setDone] = useState('');

  const enable = async () => {
    setDone('');
    const r = await call.run(() => gql(WEBHOOK_ENABLE, { id: props.id }));
    if (r) setFresh(r.hostingGitWebhookEnable);
    props.onChange();
  };
  const disable = async () => {
    setFresh(null);
    const r = await call.run(() => gql(WEBHOOK_DISABLE, { id: props.id }));
    if (r) setDone('Push-to-deploy is off; the secret was discarded.');
    props.onChange();
  };

  const enableWhy = call.busy
    ? 'Push-to-deploy is changing.'
    : props.git.connected
      ? null
      : 'Deploy a repository first.';
  return (
    <Section title="Push-to-deploy" testid="git-webhook" state={state}>
      {({ hostingGitWebhook: hook }) => (
        <div aria-busy={call.busy}>
          <p>
            {hook.enabled
              ? 'On: a signed push to this URL pulls and publishes the branch.'
              : 'Off: pushes to the repository are not deployed here.'}
          </p>
          {hook.enabled && hook.url && (
            <p class="wrap-anywhere">
              Payload URL: <code data-testid="webhook-url">{hook.url}</code>
            </p>
          )}
          {fresh?.secret && (
            <div class="card notice" data-testid="webhook-secret">
              <p>
                Sign each call to this URL with this secret (below: how; a CI step after the push can run it). The
                secret is shown this once.
              </p>
              <code class="secret">{fresh.url}</code>
              <code class="secret">{fresh.secret}</code>
            </div>
          )}
          {hook.enabled && hook.url && (
            <details data-testid="webhook-example">
              <summary>How to sign a call</summary>
              <p class="small">{PUSH_HOOK_SCHEME}</p>
              <pre class="log">
                <code>{pushHookExample(hook.url, fresh?.secret ?? 'your push-to-deploy secret')}</code>
              </pre>
            </details>
          )}
          <div class="actions">
            {hook.enabled ? (
              <ConfirmButton
                label="Turn off push-to-deploy"
                question="Turn off push-to-deploy?"
                detail="Pushes stop deploying and the secret is discarded; turning it on again makes a new one."
                confirmLabel="Turn off"
                onConfirm={disable}
                disabledReason={call.busy ? 'Push-to-deploy is changing.' : null}
              />
            ) : (
              <>
                <button type="button" onClick={enable} {...disabledProps('Turn on push-to-deploy', enableWhy)}>
                  {call.busy ? 'Turning on…' : 'Turn on push-to-deploy'}
                </button>
                <DisabledReason label="Turn on push-to-deploy" reason={enableWhy} />
              </>
            )}
          </div>
          <Outcome error={call.refusal?.message} done={done} />
        </div>
      )}
    </Section>
  );
}
