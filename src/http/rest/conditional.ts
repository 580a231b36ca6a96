import { hash } from 'node:crypto';
import type { Answer } from '../request/respond.ts';

/**
 * Conditional reads on /v1 (RFC 9110 §8.8.3, §13.1.2): every successful GET of an operation
 * carries a strong `ETag`, and `If-None-Match` naming it answers 304 Not Modified with no body.
 *
 * The validator is a hash of the exact body bytes, taken after the body is produced, so it
 * changes whenever anything in the body does (a write, a provider job, the simulated clock) and
 * never otherwise: no stale 304 is possible, whatever produced the change. The body is the
 * whole representation: every /v1 read answers `application/json` and nothing else varies with
 * the request but the body (docs/REFERENCE.md: Conditional requests).
 *
 * Applied by the pipeline's conditional stage (pipeline/conditional.ts) to the answer of a REST GET operation. A 304 is not counted against the
 * per-credential limit; that accounting is admission's (admission/admit.ts `conditional`), which waits for
 * this status.
 */
export function conditionalRead(ifNoneMatch: string | string[] | undefined, answer: Answer): Answer {
  if (answer.status !== 200) return answer;
  const etag = entityTag(answer.body);
  const condition = Array.isArray(ifNoneMatch) ? ifNoneMatch.join(', ') : ifNoneMatch;
  if (condition !== undefined && noneMatchFails(condition, etag)) {
    // RFC 9110 §15.4.5: the 304 carries what a 200 would in ETag, Cache-Control, Vary; no content headers.
    const kept: Answer['headers'] = { etag };
    for (const name of ['cache-control', 'vary']) {
      const value = answer.headers[name];
      if (value !== undefined) kept[name] = value;
    }
    return { status: 304, headers: kept, body: '' };
  }
  return { ...answer, headers: { ...answer.headers, etag } };
}

/** A strong entity tag: 128 bits of the SHA-256 of the body bytes (a string body hashed as its UTF-8 bytes, as it is sent). */
function entityTag(body: string | Uint8Array): string {
  return `"${hash('sha256', body, 'base64url').slice(0, 22)}"`;
}

/**
 * Whether `If-None-Match: <value>` fails for the current tag (so the answer is 304): `*`, or a
 * listed tag equal to it by weak comparison (`W/"x"` matches `"x"`, RFC 9110 §8.8.3.2). An
 * unparsable member matches nothing.
 */
function noneMatchFails(value: string, current: string): boolean {
  const opaque = current.replace(/^W\//, '');
  if (value.trim() === '*') return true;
  for (const m of value.matchAll(/(?:^|,)\s*(?:W\/)?("[\x21\x23-\x7e\x80-\xff]*")\s*(?=,|$)/g)) {
    if (m[1] === opaque) return true;
  }
  return false;
}
