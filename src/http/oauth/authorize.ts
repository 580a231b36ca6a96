import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../../app-services.ts';
import { apiErrorOf, headersOf } from '../../errors.ts';
import {
  AuthorizationPageError,
  AuthorizationRedirectError,
  issueAuthorizationCode,
  redirectWith,
  validateAuthorizationRequest,
  type AuthorizationRequest,
} from '../../modules/oauth/authorize.ts';
import type { DocumentPolicy } from '../../modules/oauth/clients.ts';
import { formCsrfValid, readForm } from '../dashboard/forms.ts';
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

/** The authorization request's parameters that the consent form carries back on its post. */
const REQUEST_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'resource',
  'code_challenge',
  'code_challenge_method',
] as const;

/** `sudo`: the password field when approving needs the password typed again (src/http/dashboard/sudo.ts). */
function consentPage(
  request: AuthorizationRequest,
  params: URLSearchParams,
  csrf: string,
  email: string,
  sudo: string,
  error?: string,
): string {
  const carried = REQUEST_PARAMS.map((name) =>
    name === 'redirect_uri' ? hidden(name, request.redirectUri) : hidden(name, params.get(name) ?? undefined),
  ).join('');
  const redirectHost = new URL(request.redirectUri).host;
  return htmlPage(
    `Allow ${request.client.name}?`,
    `<main class="narrow"><form class="card" method="post" action="/oauth/authorize" data-testid="consent">
<h1><strong>${escapeHtml(request.client.name)}</strong> wants access to your account</h1>
<p class="muted">Signed in as ${escapeHtml(email)}. After you answer, you go back to <span class="mono" data-testid="redirect-host">${escapeHtml(redirectHost)}</span>.</p>
<p class="small muted">${clientLine(request.client)}${request.resource ? `, for <span class="mono">${escapeHtml(request.resource)}</span>` : ''}. Untick any scope you do not want to grant.</p>
${hidden('csrf', csrf)}${carried}
${scopePicker(request.scopes)}
${sudo}
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<div class="actions"><button type="submit" name="action" value="approve">Approve</button><button type="submit" name="action" value="deny" class="danger">Deny</button></div>
</form></main>`,
  );
}

/**
 * /oauth/authorize: GET checks the request and shows the consent page (or the sign-in form
 * first); POST is the consent form's answer. An unknown client or an unregistered redirect
 * URI gets an error page here; every other error goes back to the client's redirect URI.
 */
export async function handleAuthorize(
  app: App,
  req: IncomingMessage,
  res: ServerResponse,
  documents: DocumentPolicy,
): Promise<void> {
  const base = app.config.publicBaseUrl;
  const headers = securityHeaders(app);
  const redirect = (location: string) => {
    res.writeHead(303, { ...headers, Location: location, 'Cache-Control': 'no-store', 'Content-Length': 0 });
    res.end();
  };
  let params: URLSearchParams;
  try {
    params = req.method === 'POST' ? await readForm(req) : new URL(req.url ?? '/', 'http://x').searchParams;
  } catch (err) {
    const api = apiErrorOf(err);
    if (!api) throw err;
    return sendHtml(res, api.status, messagePage('Authorization refused', api.message), headers);
  }
  const now = app.clock.now();
  let request: AuthorizationRequest;
  try {
    request = await validateAuthorizationRequest(app.prisma, params, {
      baseUrl: base,
      now,
      documents,
    });
  } catch (err) {
    if (err instanceof AuthorizationPageError)
      return sendHtml(res, 400, messagePage('This authorization request cannot be used', err.message), headers);
    if (err instanceof AuthorizationRedirectError) {
      const location = redirectWith(err.redirectUri, base, {
        error: err.error,
        error_description: err.description,
        state: err.state,
      });
      if (err.clientVerified) return redirect(location);
      // A client that registered itself gets its error through the person's click, never by an automatic redirect.
      const back = `<a href="${escapeHtml(location)}" data-testid="return-to-client" rel="noreferrer">Return to ${escapeHtml(new URL(err.redirectUri).host)}</a>`;
      return sendHtml(
        res,
        400,
        messagePage('This authorization request cannot be used', err.description, back),
        headers,
      );
    }
    // The limits on fetching the client's metadata document (src/http/oauth/metadata-fetches.ts).
    const busy = apiErrorOf(err);
    if (busy && (busy.status === 429 || busy.status === 503))
      return sendHtml(res, busy.status, messagePage('Too many requests', busy.message), {
        ...headers,
        ...headersOf(busy),
      });
    throw err;
  }
  const found = await sessionOf(app, req);
  if (!found) {
    const original = new URLSearchParams();
    for (const name of REQUEST_PARAMS) for (const v of params.getAll(name)) original.append(name, v);
    return redirect(`/sign-in?next=${encodeURIComponent(`/oauth/authorize?${original}`)}`);
  }
  const account = await app.prisma.account.findUniqueOrThrow({
    where: { id: found.session.accountId },
    select: { email: true },
  });
  const consentHeaders = securityHeaders(app, [new URL(request.redirectUri).origin]);
  const csrf = found.session.csrfToken;
  const sudo = () => sudoPasswordField(app, found.session);
  if (req.method !== 'POST')
    return sendHtml(res, 200, consentPage(request, params, csrf, account.email, sudo()), consentHeaders);

  if (!formCsrfValid(app, req, params, csrf)) {
    return sendHtml(
      res,
      403,
      messagePage(
        'Authorization refused',
        'The form expired or did not come from this site. Start again from the application.',
      ),
      headers,
    );
  }
  const action = params.get('action');
  if (action === 'deny')
    return redirect(
      redirectWith(request.redirectUri, base, {
        error: 'access_denied',
        error_description: 'The account holder denied the request.',
        state: request.state,
      }),
    );
  const granted = pickedScopes(params, request.scopes);
  if (action !== 'approve' || granted.length === 0) {
    return sendHtml(
      res,
      400,
      consentPage(
        request,
        params,
        csrf,
        account.email,
        sudo(),
        action === 'approve' ? 'Tick at least one scope to approve.' : 'Choose Approve or Deny.',
      ),
      consentHeaders,
    );
  }
  const refused = await formSudo(app, req, res, found.session, params);
  if (refused)
    return sendHtml(
      res,
      refused.status,
      consentPage(request, params, csrf, account.email, sudo(), refused.message),
      consentHeaders,
    );
  const code = await issueAuthorizationCode(app.prisma, request, found.session.accountId, granted, now);
  redirect(redirectWith(request.redirectUri, base, { code, state: request.state }));
}
