import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';

/** The mail platform's public endpoints: what customers put in DNS and in their mail programs. */
interface MailPlatform {
  /** Host on the TLS certificate: mail programs must use it for IMAP, POP3 and SMTP. */
  clientHost: string;
  /** Address the MX host of every hosted domain (mail.<domain>) points to. */
  mailIp: string;
  webmailUrl: string;
  /** SPF include of the platform's outbound relays. */
  spfInclude: string;
}

/** What the platform asks of the mail backend. A real driver (a mail server's admin API) implements the same. */
export interface MailBackend {
  readonly platform: MailPlatform;
  /** Starts hosting a domain; returns its DKIM selector and public key (the backend keeps the private key). */
  enableDomain(domain: string): Promise<{ dkimSelector: string; dkimPublicKey: string }>;
  /** Stops hosting a domain: every mailbox, its mail and every alias are removed. */
  disableDomain(domain: string): Promise<void>;
  createMailbox(address: string, passwordHash: string, quotaMb: number): Promise<void>;
  setMailboxPassword(address: string, passwordHash: string): Promise<void>;
  /** Permanently deletes a mailbox and its mail. */
  deleteMailbox(address: string): Promise<void>;
  createAlias(source: string, destination: string): Promise<void>;
  deleteAlias(source: string): Promise<void>;
}

const generateRsa = promisify(generateKeyPair);

/** The simulated mail cluster: accepts every change; DKIM keys are real 2048-bit RSA keys. */
class SimulatedMailBackend implements MailBackend {
  readonly platform: MailPlatform = {
    clientHost: 'mail.cloudhost.example',
    // An address of the simulated datacenter's range (198.18.0.0/15, docs/REFERENCE.md: Servers).
    mailIp: '198.18.255.25',
    webmailUrl: 'https://webmail.cloudhost.example/',
    spfInclude: '_spf.cloudhost.example',
  };

  async enableDomain(): Promise<{ dkimSelector: string; dkimPublicKey: string }> {
    const { publicKey } = await generateRsa('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'der' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    return { dkimSelector: 'default', dkimPublicKey: Buffer.from(publicKey).toString('base64') };
  }

  async disableDomain(): Promise<void> {}
  async createMailbox(): Promise<void> {}
  async setMailboxPassword(): Promise<void> {}
  async deleteMailbox(): Promise<void> {}
  async createAlias(): Promise<void> {}
  async deleteAlias(): Promise<void> {}
}

export const mailBackend: MailBackend = new SimulatedMailBackend();
