import { useState } from 'preact/hooks';
import { Section, useLive } from '../../live-query.tsx';
import { graphql } from '../../graphql.ts';

const LOG_KINDS = [
  ['access', 'Access log'],
  ['error', 'Error log'],
] as const;

/** Lines read from the end of the log at a time. */
const LOG_LINES = 200;

const LOGS_QUERY = graphql(
  'query($id: ID!, $kind: String!, $lines: Int) { hostingLogs(id: $id, kind: $kind, lines: $lines) { kind lines } }',
);

/** Logs tab: the tail of the site's access or error log, newest line first. */
export function LogsPanel(props: { id: string }) {
  const [kind, setKind] = useState<string>('access');
  const [reload, setReload] = useState(0);
  const state = useLive(LOGS_QUERY, ['hosting.'], { id: props.id, kind, lines: LOG_LINES }, reload);
  return (
    <Section title="Logs" testid="hosting-logs" state={state}>
      {({ hostingLogs }) => (
        <>
          <div class="log-controls">
            {/* A label beside (not around) the select: its name is then "Log", not "Log" plus the option shown. */}
            <div class="log-kind">
              <label for="log-kind">Log</label>
              <select id="log-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
                {LOG_KINDS.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            </div>
            <button type="button" class="secondary" onClick={() => setReload((n) => n + 1)}>
              Refresh
            </button>
          </div>
          {hostingLogs.lines.length === 0 ? (
            <p class="muted">The {hostingLogs.kind} log is empty.</p>
          ) : (
            <>
              <p class="muted small">The last {hostingLogs.lines.length} lines, newest first (UTC).</p>
              {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the log scrolls; a keyboard reaches it to scroll it. */}
              <ol class="log" data-testid="log-lines" tabIndex={0} aria-label={`${hostingLogs.kind} log, newest first`}>
                {[...hostingLogs.lines].reverse().map((line, i) => (
                  <li key={i}>{line}</li>
                ))}
              </ol>
            </>
          )}
        </>
      )}
    </Section>
  );
}
