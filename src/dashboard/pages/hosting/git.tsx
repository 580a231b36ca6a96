import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { ConfirmButton, DisabledReason, disabledProps } from '../../confirm.tsx';
import { StatusBadge, When } from '../../format.tsx';
import { Section, useLive } from '../../live-query.tsx';
import { DeployKey, GIT_STATUS, type GitStatus, PushWebhook } from './git-access.tsx';
import { Outcome, TextField, useCall } from './panel-kit.tsx';
import { graphql, type TadaDocumentNode } from '../../graphql.ts';

const GIT_QUERY = graphql('query($id: ID!) { hostingGit(id: $id) { ...GitStatus } }', [GIT_STATUS]);
const GIT_PULL = graphql('mutation($id: ID!) { hostingGitPull(id: $id) { ...GitStatus } }', [GIT_STATUS]);
const GIT_DISCONNECT = graphql('mutation($id: ID!) { hostingGitDisconnect(id: $id) { ...GitStatus } }', [GIT_STATUS]);
const GIT_DEPLOY = graphql(
  `mutation($id: ID!, $repoUrl: String!, $branch: String, $subdir: String) {
    hostingGitDeploy(id: $id, repoUrl: $repoUrl, branch: $branch, subdir: $subdir) { ...GitStatus }
  }`,
  [GIT_STATUS],
);

/** Git deploy tab: what is deployed, deploy a repository, pull, disconnect; the deploy key and push-to-deploy. */
export function GitPanel(props: { id: string }) {
  const [reload, setReload] = useState(0);
  const refresh = () => setReload((n) => n + 1);
  const state = useLive(GIT_QUERY, ['hosting.'], { id: props.id }, reload);
  return (
    <>
      <Section title="Git deploy" testid="hosting-git" state={state}>
        {({ hostingGit }) => <GitStatusView id={props.id} git={hostingGit} onChange={refresh} />}
      </Section>
      <DeployForm id={props.id} git={state.data?.hostingGit} onChange={refresh} />
      <DeployKey id={props.id} />
      {state.data && <PushWebhook id={props.id} git={state.data.hostingGit} onChange={refresh} />}
    </>
  );
}

function GitStatusView(props: { id: string; git: GitStatus; onChange(): void }) {
  const { git } = props;
  const call = useCall();
  const [done, setDone] = useState('');
  const act = async (mutation: TadaDocumentNode<unknown, { id: string }>, said: string) => {
    setDone('');
    const r = await call.run(() => gql(mutation, { id: props.id }));
    if (r) setDone(said);
    props.onChange();
  };
  const why = call.busy ? 'A git action is under way.' : git.connected ? null : 'No repository is connected yet.';
  return (
    <div aria-busy={call.busy}>
      <dl class="facts">
        <dt>Status</dt>
        <dd data-testid="git-status">
          <StatusBadge status={git.status} />
        </dd>
        <dt>Repository</dt>
        <dd class="mono">{git.repoUrl ?? '—'}</dd>
        <dt>Branch</dt>
        <dd class="mono">{git.branch ?? '—'}</dd>
        <dt>Published to</dt>
        <dd class="mono">{git.connected ? `/public_html${git.subdir ? `/${git.subdir}` : ''}` : '—'}</dd>
        <dt>Commit</dt>
        <dd data-testid="git-commit">
          {git.commit ? (
            <>
              <span class="mono" title={git.commit.sha}>
                {git.commit.sha.slice(0, 10)}
              </span>{' '}
              {git.commit.message}
            </>
          ) : (
            '—'
          )}
        </dd>
        <dt>Deployed</dt>
        <dd>
          <When at={git.lastDeployedAt} none="never" />
        </dd>
      </dl>
      {git.lastError && (
        <p class="error" data-testid="git-last-error">
          Last attempt failed: {git.lastError}
        </p>
      )}
      <div class="actions">
        <button
          type="button"
          onClick={() => act(GIT_PULL, 'Pulled and published the branch.')}
          {...disabledProps('Pull', why)}
        >
          {call.busy ? 'Working…' : 'Pull'}
        </button>
        <DisabledReason label="Pull" reason={why} />
        <ConfirmButton
          label="Disconnect"
          question="Disconnect git deploy?"
          detail="The repository is forgotten and push-to-deploy stops; the published files stay."
          confirmLabel="Disconnect"
          onConfirm={() => act(GIT_DISCONNECT, 'Git deploy disconnected.')}
          disabledReason={why}
        />
      </div>
      <Outcome error={call.refusal?.message} done={done} />
    </div>
  );
}

/** Deploy (or deploy again, another branch or repository): clones the branch and publishes it. */
function DeployForm(props: { id: string; git: GitStatus | undefined; onChange(): void }) {
  const call = useCall();
  const [repoUrl, setRepoUrl] = useState('');
  const [branch, setBranch] = useState('main');
  const [subdir, setSubdir] = useState('');
  const [done, setDone] = useState('');

  const submit = async (e: Event) => {
    e.preventDefault();
    setDone('');
    const r = await call.run(() =>
      gql(GIT_DEPLOY, {
        id: props.id,
        repoUrl: repoUrl.trim(),
        branch: branch.trim() || null,
        subdir: subdir.trim() || null,
      }),
    );
    if (r) {
      const c = r.hostingGitDeploy.commit;
      setDone(`Deployed ${r.hostingGitDeploy.branch}${c ? ` at ${c.sha.slice(0, 10)}` : ''}.`);
    }
    props.onChange();
  };

  const fields = ['repoUrl', 'branch', 'subdir'];
  return (
    <form class="card" onSubmit={submit} aria-busy={call.busy} noValidate data-testid="git-deploy">
      <h2>{props.git?.connected ? 'Deploy again' : 'Deploy a repository'}</h2>
      <p class="muted small">
        Add the deploy key below to the repository (read-only) first. The branch is cloned over SSH and published.
      </p>
      <TextField
        id="git-repo-url"
        label="Repository URL"
        value={repoUrl}
        onInput={setRepoUrl}
        mono
        placeholder="git@github.com:owner/site.git"
        error={call.errorOf('repoUrl')}
        hint="An SSH address: git@host:owner/repo.git or ssh://host/path."
      />
      <div class="fields">
        <TextField
          id="git-branch"
          label="Branch"
          value={branch}
          onInput={setBranch}
          mono
          error={call.errorOf('branch')}
        />
        <TextField
          id="git-subdir"
          label="Directory (optional)"
          value={subdir}
          onInput={setSubdir}
          mono
          placeholder="app"
          error={call.errorOf('subdir')}
          hint="Under /public_html; empty for /public_html itself."
        />
      </div>
      <button type="submit" disabled={call.busy}>
        {call.busy ? 'Deploying…' : 'Deploy'}
      </button>
      {call.busy && <p role="status">Cloning the branch and publishing it…</p>}
      <Outcome error={call.formError(...fields)} done={done} />
    </form>
  );
}
