import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { graphql, type ResultOf, type VariablesOf } from '../../graphql.ts';

/**
 * The page's one read, made again on every server event and while a job runs: one request, as
 * every request counts against the session's rate limit (600 a minute). Only `servers:read`
 * fields, so a session opened from a server's SSO link can read it.
 */
export const PAGE_QUERY = graphql(`query($id: ID!, $period: UsagePeriod!) {
  server(id: $id) {
    id label status productId os osTemplate vcpu ramMb diskGb createdAt renewsAt poolId
    sshKeys { id name fingerprint }
    ips { ip version primary ptr zoneHosted }
    snapshots { id name status sizeGb createdAt }
    pool { id label }
    powerActions { action available reason }
    actions { action available reason }
    usage(period: $period) {
      period step
      samples {
        sampledAt cpu { percent } memory { usedMb totalMb }
        network { rxBytesPerSecond txBytesPerSecond }
        disk { usedGb totalGb readBytesPerSecond writeBytesPerSecond }
      }
    }
  }
  serverAddons(id: $id) {
    nodes { id name type ipCount monthlyUsdCents proratedUsdCents active available ownedByType stockNote }
  }
  serverCatalogue { osTemplates { id os name } }
}`);

/** Everything the page shows but the plan options (a pool server has none: that read is refused). */
export type PageData = ResultOf<typeof PAGE_QUERY>;
/** The server as its page reads it. */
export type ServerDetail = PageData['server'];
/** The server's usage over a period (Server.usage): one sample a step, oldest first. */
export type Usage = ServerDetail['usage'];
/** How far back the usage charts go (Server.usage's period). */
export type UsagePeriod = VariablesOf<typeof PAGE_QUERY>['period'];
/** An add-on the server's plan offers (serverAddons). */
export type Addon = PageData['serverAddons']['nodes'][number];
export type OsTemplate = PageData['serverCatalogue']['osTemplates'][number];

export type PowerAction = 'start' | 'stop' | 'reboot';
type ServerAction =
  | 'snapshot'
  | 'revert'
  | 'snapshotDelete'
  | 'reinstall'
  | 'changePlan'
  | 'addonAttach'
  | 'addonDetach'
  | 'ptr'
  | 'terminate';

/** Why the server does not take `action` now, by the API's rule; null when it does. */
export const whyNot = (s: ServerDetail, action: ServerAction) =>
  s.actions.find((a) => a.action === action)?.reason ?? null;

/** What every section of the server page gets: the server, and a way to have the page read it again. */
export interface SectionProps {
  server: ServerDetail;
  onChanged(): void;
}

/**
 * A button that opens a modal dialog to confirm an action, with whatever the dialog must show
 * (a price, a choice, a name to type). Like ConfirmButton (confirm.tsx), but `id` keeps the
 * reason and dialog ids unique when many rows have the same button.
 */
export function DialogButton(props: {
  id: string;
  label: string;
  /** The dialog's heading, which names it. */
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm(): unknown;
  danger?: boolean;
  /** Why the action is not possible now: the button is disabled and says so. */
  disabledReason?: string | null;
  /** Why the dialog's confirm button is not enabled yet (a name not typed, say). */
  confirmBlocked?: boolean;
  busy?: boolean;
  onOpen?(): void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const reasonId = `why-${props.id}`;
  const titleId = `dialog-${props.id}`;
  const reason = props.busy ? 'Under way.' : props.disabledReason;
  return (
    <>
      <button
        type="button"
        class={props.danger ? 'danger' : 'secondary'}
        aria-busy={props.busy || undefined}
        onClick={() => {
          props.onOpen?.();
          dialog.current?.showModal();
        }}
        {...(reason ? { disabled: true, title: reason, 'aria-describedby': reasonId } : {})}
      >
        {props.busy ? `${props.label}…` : props.label}
      </button>
      {reason && (
        <span id={reasonId} class="visually-hidden">
          {reason}
        </span>
      )}
      <dialog ref={dialog} class="confirm" aria-labelledby={titleId}>
        <h2 id={titleId}>{props.title}</h2>
        {props.children}
        <div class="actions">
          <button type="button" class="secondary" autofocus onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button
            type="button"
            class={props.danger ? 'danger solid' : undefined}
            disabled={props.confirmBlocked}
            onClick={() => {
              dialog.current?.close();
              void props.onConfirm();
            }}
          >
            {props.confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}

/** A mutation run from a section: busy while it runs, its refusal kept for the section to show. */
export function useRun() {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<{ key: string; message: string; field?: string } | null>(null);
  const run = async <T,>(key: string, call: () => Promise<T>): Promise<T | undefined> => {
    setBusy(key);
    setError(null);
    try {
      return await call();
    } catch (err) {
      setError({ key, message: (err as Error).message, field: (err as { field?: string }).field });
      return undefined;
    } finally {
      setBusy(null);
    }
  };
  return { busy, error, run, clearError: () => setError(null) };
}
