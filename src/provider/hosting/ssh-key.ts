import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';

/**
 * An ed25519 deploy key in OpenSSH's own formats: the public key line
 * (`ssh-ed25519 AAAA... comment`) customers paste into their repository, and the private
 * key (`-----BEGIN OPENSSH PRIVATE KEY-----`, unencrypted, kept 0600 on disk) git's ssh uses.
 */
export interface OpenSshKeyPair {
  publicKey: string;
  privateKey: string;
  fingerprint: string;
}

function sshString(data: Buffer | string): Buffer {
  const body = typeof data === 'string' ? Buffer.from(data) : data;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  return Buffer.concat([len, body]);
}

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

export function generateDeployKey(comment: string): OpenSshKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  // SPKI and PKCS#8 DER of ed25519 end with the raw 32-byte public key and seed.
  const pub = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32);
  const blob = Buffer.concat([sshString('ssh-ed25519'), sshString(pub)]);

  const check = randomBytes(4).readUInt32BE(0);
  let section = Buffer.concat([
    uint32(check),
    uint32(check),
    sshString('ssh-ed25519'),
    sshString(pub),
    sshString(Buffer.concat([seed, pub])),
    sshString(comment),
  ]);
  const pad: number[] = [];
  for (let i = 1; (section.length + pad.length) % 8 !== 0; i++) pad.push(i);
  section = Buffer.concat([section, Buffer.from(pad)]);
  const body = Buffer.concat([
    Buffer.from('openssh-key-v1\0'),
    sshString('none'),
    sshString('none'),
    sshString(''),
    uint32(1),
    sshString(blob),
    sshString(section),
  ]);
  const b64 = body
    .toString('base64')
    .replace(/(.{70})/g, '$1\n')
    .replace(/\n$/, '');
  return {
    publicKey: `ssh-ed25519 ${blob.toString('base64')} ${comment}`,
    privateKey: `-----BEGIN OPENSSH PRIVATE KEY-----\n${b64}\n-----END OPENSSH PRIVATE KEY-----\n`,
    fingerprint: fingerprintOf(blob),
  };
}

/** `SHA256:<base64, unpadded>` of the key blob, as `ssh-keygen -l` prints it. */
function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

export function fingerprintOfLine(line: string): string {
  return fingerprintOf(Buffer.from(line.split(' ')[1] ?? '', 'base64'));
}
