import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../../app-services.ts';
import { apiErrorOf } from '../../errors.ts';
import { decideDevice, findPendingDevice } from '../../modules/oauth/service.ts';
import { clientAddress } from '../request/client-address.ts';
import { consumeLimit, formCsrfValid, readForm } from '../dashboard/forms.ts';
import {
  clientLine,
  escapeHtml,
  hidden,
  htmlPage,
  messagePage,
  pickedScopes,
  scopePicker,
  securityHeaders,
  sendHtml,
} from '../dashboard/html.ts';
import { sessionOf } from '../dashboard/session-auth.ts';
import { formSudo, sudoPasswordField } from '../dashboard/sudo.ts';

/**
 * The device page without script: the code form (GET /oauth/device, inside the dashboard
 * app's <noscript>), then form posts to /oauth/device that look the code up, show the
 * request with the scope picker, and record the answer. The dashboard app does the same over
 * /dashboard/api; both count against the same user-code attempt limits.
 */

export const UNKNOWN_CODE = 'This code is not valid: it may be mistyped, expired or already used.';

export function deviceCodeForm(opts: { csrf: string; code: string; error?: string }): string {
  return `<main class="narrow"><h1>Connect a device</h1><form class="card" method="post" action="/oauth/device">
${hidden('csrf', opts.csrf)}${hidden('action', 'lookup')}
<label>Code shown on your device <input name="user_code" class="code" autocomplete="off" spellcheck="false" placeholder="XXXX-XXXX" maxlength="12" value="${escapeHtml(opts.code)}"></label>
<button type="submit">Continue</button>
${opts.error ? `<p class="error" role="alert">${escapeHtml(opts.error)}</p>` : ''}</form></main>`;
}

type Pending = NonNullable<Awaited<ReturnType<typeof findPendingDevice>>>;

/** `sudo`: the password field when approving needs the password typed again (src/http/dashboard/sudo.ts). */
function decisionForm(csrf: string, pending: Pending, sudo: string, error?: string): string {
  return `<main class="narrow"><h1>Connect a device</h1><form class="card" method="post" action="/oauth/device" data-testid="device-request">
<h2><strong>${escapeHtml(pending.client.name)}</strong> wants access to your account</h2>
<p class="muted">Code <span class="mono">${escapeHtml(pending.userCode)}</span>. ${clientLine(pending.client)} Untick any scope you do not want to grant.</p>
${hidden('csrf', csrf)}${hidden('user_code', pending.userCode)}
${scopePicker(pending.scopes)}
${sudo}
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<div class="actions"><button type="submit" name="action" value="approve">Approve</button><button type="submit" name="action" value="deny" class="danger">Deny</button></div>
</form></main>`;
}

/** POST /oauth/device: lookup, approve or deny, by form. */
export async function handleDeviceForm(app: App, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const headers = securityHeaders(app);
  const page = (status: number, body: string) => sendHtml(res, status, htmlPage('Connect a device', body), headers);
  const found = await sessionOf(app, req);
  if (!found) {
    res.writeHead(303, { ...headers, Location: '/sign-in?next=%2Foauth%2Fdevice', 'Content-Length': 0 });
    return void res.end();
  }
  const csrf = found.session.csrfToken;
  try {
    const form = await readForm(req);
    if (!formCsrfValid(app, req, form, csrf)) {
      return sendHtml(
        res,
        403,
        messagePage(
          'Request refused',
          'The form expired or did not come from this site. Load the device page again.',
          '<a href="/oauth/device">Connect a device</a>',
        ),
        headers,
      );
    }
    const code = form.get('user_code') ?? '';
    await consumeLimit(app, res, 'userCodeAddress', clientAddress(app.config, req));
    await consumeLimit(app, res, 'userCodeAccount', found.session.accountId);
    const action = form.get('action');
    const now = app.clock.now();
    const pending = code.length <= 32 ? await findPendingDevice(app.prisma, code, now) : null;
    if (!pending) return page(404, deviceCodeForm({ csrf, code: code.slice(0, 32), error: UNKNOWN_CODE }));
    const sudo = () => sudoPasswordField(app, found.session);
    if (action === 'lookup') return page(200, decisionForm(csrf, pending, sudo()));
    if (action !== 'approve' && action !== 'deny')
      return page(400, decisionForm(csrf, pending, sudo(), 'Choose Approve or Deny.'));
    const approve = action === 'approve';
    const refused = approve ? await formSudo(app, req, res, found.session, form) : null;
    if (refused) return page(refused.status, decisionForm(csrf, pending, sudo(), refused.message));
    const result = await decideDevice(
      app.prisma,
      found.session.accountId,
      code,
      approve ? { approve: true, scopes: pickedScopes(form, pending.scopes) } : { approve: false },
      now,
    );
    if (!result.ok && result.reason === 'invalid_scope')
      return page(400, decisionForm(csrf, pending, '', 'Tick at least one scope to approve.'));
    if (!result.ok) return page(404, deviceCodeForm({ csrf, code: '', error: UNKNOWN_CODE }));
    return sendHtml(
      res,
      200,
      approve
        ? messagePage(
            'Device connected',
            `${pending.client.name} can now use your account with the scopes you chose. You can return to your device.`,
          )
        : messagePage('Request denied', 'The device was not given access.'),
      headers,
    );
  } catch (err) {
    const api = apiErrorOf(err);
    if (!api) throw err;
    page(api.status, deviceCodeForm({ csrf, code: '', error: api.message }));
  }
}
