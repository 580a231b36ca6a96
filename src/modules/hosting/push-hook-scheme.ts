/**
 * How a push-to-deploy call is signed, said once for the receiver's refusals, the API's
 * description, the dashboard's git tab and the reference (a test runs the example).
 */

/** How far the signed timestamp may be from the app clock, either way; also how long a delivery id is remembered. */
export const PUSH_HOOK_WINDOW_SECONDS = 300;

export const PUSH_HOOK_SCHEME =
  'Sign each call: X-Service-Delivery: <a new id> and X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<delivery id>.<raw body>"> with the push-to-deploy secret; the time must be within 5 minutes, and each delivery id is accepted once.';

/** A shell example of one signed call (openssl and curl), for `url` and `secret` (placeholders when absent). */
export function pushHookExample(url = 'https://cloud.example.com/hooks/git/hst_…', secret = 'gdh_…'): string {
  return [
    `SECRET='${secret}'`,
    `BODY='{"ref":"refs/heads/main"}'`,
    'T=$(date +%s)',
    'ID=$(cat /proc/sys/kernel/random/uuid)  # a new id for every call',
    `SIG=$(printf '%s.%s.%s' "$T" "$ID" "$BODY" | openssl dgst -sha256 -hmac "$SECRET" | awk '{print $NF}')`,
    `curl -sS -X POST '${url}' \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -H "X-Service-Delivery: $ID" \\`,
    `  -H "X-Service-Signature: t=$T,v1=$SIG" \\`,
    `  --data "$BODY"`,
  ].join('\n');
}
