import { randomInt } from 'node:crypto';

/** Letters and digits a person reads back without doubt: no 0/O, 1/l/I. */
const PASSWORD_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** A random password handed out once (a server's root, a hosting database's user). */
export function randomPassword(length = 24): string {
  let password = '';
  for (let i = 0; i < length; i++) password += PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)];
  return password;
}
