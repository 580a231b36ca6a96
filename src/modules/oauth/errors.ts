/** An RFC 6749 §5.2 / RFC 8628 §3.5 / RFC 7591 §3.2.2 error: `{ error, error_description }` with its HTTP status. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}
