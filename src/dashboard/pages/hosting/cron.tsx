import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { ConfirmButton } from '../../confirm.tsx';
import { Section, useLive } from '../../live-query.tsx';
import { Outcome, TextField, useCall } from './panel-kit.tsx';
import { ListTable } from '../../list-table.tsx';
import { graphql, type ResultOf } from '../../graphql.ts';

const CRON_QUERY = graphql('query($id: ID!) { hostingCron(id: $id) { header jobs { schedule command } } }');
type CronJob = ResultOf<typeof CRON_QUERY>['hostingCron']['jobs'][number];
const CRON_SET = graphql(
  'mutation($id: ID!, $jobs: [HostingCronJobInput!]!) { hostingCronSet(id: $id, jobs: $jobs) { header jobs { schedule command } } }',
);

/**
 * Cron tab. The API replaces the whole crontab at once, so adding, editing and removing a job
 * each send the full list; a refusal names the job's index, which maps back to the form.
 */
export function CronPanel(props: { id: string }) {
  const [reload, setReload] = useState(0);
  const state = useLive(CRON_QUERY, ['hosting.'], { id: props.id }, reload);
  const save = useCall();
  const removal = useCall();
  /** The job the form edits (its index), or null when it adds one. */
  const [editing, setEditing] = useState<number | null>(null);
  const [schedule, setSchedule] = useState('');
  const [command, setCommand] = useState('');
  const [done, setDone] = useState('');

  const send = (jobs: CronJob[]) =>
    gql(CRON_SET, {
      id: props.id,
      jobs: jobs.map((j) => ({ schedule: j.schedule, command: j.command })),
    });

  const reset = () => {
    setEditing(null);
    setSchedule('');
    setCommand('');
    save.clear();
  };

  const submit = async (jobs: CronJob[], e: Event) => {
    e.preventDefault();
    setDone('');
    const job = { schedule: schedule.trim(), command };
    const next = editing === null ? [...jobs, job] : jobs.map((j, i) => (i === editing ? job : j));
    const r = await save.run(() => send(next));
    if (r) {
      setDone(editing === null ? 'Job added.' : 'Job saved.');
      reset();
      setReload((n) => n + 1);
    }
  };

  const remove = async (jobs: CronJob[], index: number) => {
    setDone('');
    if (editing !== null) reset();
    const r = await removal.run(() => send(jobs.filter((_, i) => i !== index)));
    if (r) setDone('Job removed.');
    setReload((n) => n + 1);
  };

  return (
    <Section title="Cron jobs" testid="hosting-cron" state={state}>
      {({ hostingCron: { header, jobs } }) => {
        const at = editing ?? jobs.length;
        const scheduleField = `jobs[${at}].schedule`;
        const commandField = `jobs[${at}].command`;
        return (
          <>
            <details>
              <summary>Crontab header (set by the panel)</summary>
              <pre class="log">{header}</pre>
            </details>
            <ListTable rows={jobs} empty="No cron jobs yet." columns={['Schedule', 'Command']} actions>
              {(j, i) => (
                <tr key={i} data-testid="cron-job" class={editing === i ? 'selected' : undefined}>
                  <td class="mono">{j.schedule}</td>
                  <td class="mono wrap">{j.command}</td>
                  <td>
                    <span class="row-actions">
                      <button
                        type="button"
                        class="secondary"
                        onClick={() => {
                          save.clear();
                          setEditing(i);
                          setSchedule(j.schedule);
                          setCommand(j.command);
                          // The form is below the list: take the keyboard there.
                          document.getElementById('cron-schedule')?.focus();
                        }}
                      >
                        Edit
                      </button>
                      <ConfirmButton
                        label="Remove"
                        question={`Remove the job "${j.schedule} ${j.command}"?`}
                        detail="It stops running; the other jobs stay."
                        confirmLabel="Remove job"
                        onConfirm={() => remove(jobs, i)}
                      />
                    </span>
                  </td>
                </tr>
              )}
            </ListTable>
            <Outcome error={removal.refusal?.message} done={removal.busy ? 'Removing…' : done} />
            <form onSubmit={(e) => submit(jobs, e)} aria-busy={save.busy} noValidate data-testid="cron-form">
              <h3>{editing === null ? 'Add a job' : `Edit job ${editing + 1}`}</h3>
              <div class="fields">
                <TextField
                  id="cron-schedule"
                  label="Schedule"
                  value={schedule}
                  onInput={setSchedule}
                  mono
                  placeholder="*/15 * * * *"
                  error={save.errorOf(scheduleField)}
                  hint="Five fields (minute hour day month weekday) or @hourly, @daily, @weekly, @monthly; UTC."
                />
                <TextField
                  id="cron-command"
                  label="Command"
                  value={command}
                  onInput={setCommand}
                  mono
                  placeholder="php ~/public_html/cron.php"
                  error={save.errorOf(commandField)}
                  hint="One line, run as the account's user."
                />
              </div>
              <div class="actions">
                <button type="submit" disabled={save.busy}>
                  {save.busy ? 'Saving…' : editing === null ? 'Add job' : 'Save job'}
                </button>
                {editing !== null && (
                  <button type="button" class="secondary" onClick={reset}>
                    Cancel
                  </button>
                )}
              </div>
              <Outcome error={save.formError(scheduleField, commandField)} />
            </form>
          </>
        );
      }}
    </Section>
  );
}
