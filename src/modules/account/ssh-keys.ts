import { createHash } from 'node:crypto';
import type { TenantDb } from '../../db/tenant.ts';
import { ID_PREFIX, newId } from '../../db/ids.ts';
import { paginate, type PageArgs } from '../../core/paging.ts';
import { z } from 'zod';
import { ApiError, badRequest, notFound, refusal } from '../../errors.ts';
import { recordEvent } from '../../events/outbox.ts';

/**
 * SSH public keys kept on the account, installed on a server chosen at order or reinstall. Only
 * the OpenSSH one-line form of three key types is taken, and each is parsed to its last byte:
 * what is stored is a key that `sshd` accepts, never a blob that merely looks like one.
 */

/** At most this many keys per account. */
export const SSH_KEYS_PER_ACCOUNT = 50;
/** RSA keys shorter than this are refused (NIST SP 800-131A); longer than the max are not keys people use. */
export const RSA_MIN_BITS = 2048;
const RSA_MAX_BITS = 16384;

export const SSH_KEY_RULES = {
  name: z.string().trim().min(1).max(100),
  publicKey: z.string().trim().min(1).max(16384),
  ids: z.array(z.string()).max(20).meta({ itemsNoun: 'key ids' }),
};

/** The same public key twice on one account. */
export const SSH_KEY_EXISTS = refusal(409, 'The key is already on the account (the same fingerprint)');

export const SSH_KEY_TYPES = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ssh-rsa'] as const;

export interface ParsedKey {
  keyType: (typeof SSH_KEY_TYPES)[number];
  /** `<type> <base64>`, the comment dropped. */
  publicKey: string;
  fingerprint: string;
  bits: number;
}

const FORMAT_HELP =
  'public_key must be one OpenSSH public key line: "ssh-ed25519 AAAA… comment", "ecdsa-sha2-nistp256 AAAA…" or "ssh-rsa AAAA…" (the contents of a .pub file).';

/** Reads the SSH wire format's length-prefixed strings (RFC 4251 §5) from a key blob. */
class BlobReader {
  private at = 0;
  constructor(private readonly blob: Buffer) {}
  string(): Buffer {
    if (this.at + 4 > this.blob.length) throw badRequest(FORMAT_HELP, 'public_key');
    const length = this.blob.readUInt32BE(this.at);
    if (this.at + 4 + length > this.blob.length) throw badRequest(FORMAT_HELP, 'public_key');
    const value = this.blob.subarray(this.at + 4, this.at + 4 + length);
    this.at += 4 + length;
    return value;
  }
  get done(): boolean {
    return this.at === this.blob.length;
  }
}

/** The bit length of an SSH mpint (big-endian, a leading zero byte when the top bit is set). */
function mpintBits(value: Buffer): number {
  let i = 0;
  while (i < value.length && value[i] === 0) i++;
  if (i === value.length) return 0;
  return (value.length - i - 1) * 8 + (32 - Math.clz32(value[i]));
}

/** Parses an OpenSSH public key line; 400 naming `public_key` with what is wrong. */
function parsePublicKey(input: string): ParsedKey {
  const line = input.trim();
  if (/PRIVATE KEY/.test(line))
    throw badRequest(
      'public_key is a private key: give the line of the .pub file beside it, and keep the private key to yourself.',
      'public_key',
    );
  if (/[\r\n]/.test(line)) throw badRequest('public_key must be a single key on one line.', 'public_key');
  const [type, data] = line.split(/\s+/);
  if (!data || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) throw badRequest(FORMAT_HELP, 'public_key');
  if (!(SSH_KEY_TYPES as readonly string[]).includes(type))
    throw badRequest(
      `public_key must be of type ${SSH_KEY_TYPES.join(', ')} ("${type.slice(0, 40)}" is not taken).`,
      'public_key',
    );
  const blob = Buffer.from(data, 'base64');
  const reader = new BlobReader(blob);
  if (reader.string().toString('latin1') !== type)
    throw badRequest(`public_key: the key data is not a ${type} key.`, 'public_key');
  let bits: number;
  if (type === 'ssh-ed25519') {
    if (reader.string().length !== 32) throw badRequest(FORMAT_HELP, 'public_key');
    bits = 256;
  } else if (type === 'ecdsa-sha2-nistp256') {
    const curve = reader.string().toString('latin1');
    const point = reader.string();
    if (curve !== 'nistp256' || point.length !== 65 || point[0] !== 4) throw badRequest(FORMAT_HELP, 'public_key');
    bits = 256;
  } else {
    const exponent = reader.string();
    bits = mpintBits(reader.string());
    if (mpintBits(exponent) < 2) throw badRequest(FORMAT_HELP, 'public_key');
    if (bits < RSA_MIN_BITS || bits > RSA_MAX_BITS)
      throw badRequest(
        `public_key: RSA keys must have ${RSA_MIN_BITS} to ${RSA_MAX_BITS} bits (this one has ${bits}); an ssh-ed25519 key is better still.`,
        'public_key',
      );
  }
  if (!reader.done) throw badRequest(FORMAT_HELP, 'public_key');
  const fingerprint = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
  return { keyType: type as ParsedKey['keyType'], publicKey: `${type} ${blob.toString('base64')}`, fingerprint, bits };
}

export type SshKeyRow = Awaited<ReturnType<TenantDb['sshKey']['findFirstOrThrow']>>;

export function listSshKeys(db: TenantDb, args: PageArgs) {
  return paginate(args, ID_PREFIX.sshKey, (q) => db.sshKey.findMany(q));
}

export async function addSshKey(
  db: TenantDb,
  accountId: string,
  input: { name: string; publicKey: string },
  now: Date,
) {
  const name = input.name.trim();
  if (!name) throw badRequest('name must be 1 to 100 characters.', 'name');
  const parsed = parsePublicKey(input.publicKey);
  return db.$transaction(async (tx) => {
    // One account's adds run one after another, so the count and the duplicate check hold.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`ssh-keys:${accountId}`}))`;
    const same = await tx.sshKey.findFirst({ where: { fingerprint: parsed.fingerprint }, select: { name: true } });
    if (same)
      throw SSH_KEY_EXISTS.error(`This key is already on the account as "${same.name}" (${parsed.fingerprint}).`);
    if ((await tx.sshKey.count()) >= SSH_KEYS_PER_ACCOUNT)
      throw badRequest(`An account holds at most ${SSH_KEYS_PER_ACCOUNT} SSH keys: delete one first.`);
    const key = await tx.sshKey.create({
      data: { id: newId(ID_PREFIX.sshKey, now.getTime()), accountId, name, ...parsed, createdAt: now },
    });
    await recordEvent(
      tx,
      accountId,
      'account.ssh_key.added',
      { sshKeyId: key.id, name, fingerprint: key.fingerprint },
      now,
    );
    return key;
  });
}

export async function deleteSshKey(db: TenantDb, accountId: string, id: string, now: Date) {
  return db.$transaction(async (tx) => {
    const key = await tx.sshKey.findFirst({ where: { id } });
    if (!key) throw notFound('SSH key');
    await tx.sshKey.delete({ where: { id } });
    await recordEvent(
      tx,
      accountId,
      'account.ssh_key.deleted',
      { sshKeyId: id, name: key.name, fingerprint: key.fingerprint },
      now,
    );
    return { id, deleted: true };
  });
}

/** A key as a server records it was built with (kept after the key leaves the account). */
export type InstalledKey = {
  id: string;
  name: string;
  fingerprint: string;
};

/**
 * What a server is built with: the account's keys by id, in the order given, for an `os`
 * family; 404 naming the first unknown id (another account's included), 400 for Windows, which
 * takes no SSH keys. `public_keys` go to the provider, `installed` onto the server.
 */
export async function keysForInstall(
  db: { sshKey: Pick<TenantDb['sshKey'], 'findMany'> },
  accountId: string,
  ids: readonly string[] | null | undefined,
  os: string,
): Promise<{ publicKeys: string[]; installed: InstalledKey[] }> {
  const wanted = [...new Set(ids ?? [])];
  if (!wanted.length) return { publicKeys: [], installed: [] };
  if (os !== 'linux')
    throw badRequest(
      'sshKeyIds: SSH keys are installed on Linux systems only; Windows uses its password.',
      'sshKeyIds',
    );
  // The account named here too: the operator API orders through the unscoped client.
  const found = await db.sshKey.findMany({ where: { accountId, id: { in: wanted } } });
  const byId = new Map(found.map((k) => [k.id, k]));
  const missing = wanted.find((id) => !byId.has(id));
  if (missing) throw new ApiError(404, `SSH key ${missing} not found.`, { field: 'sshKeyIds' });
  const keys = wanted.map((id) => byId.get(id)!);
  return {
    publicKeys: keys.map((k) => k.publicKey),
    installed: keys.map((k) => ({ id: k.id, name: k.name, fingerprint: k.fingerprint })),
  };
}
