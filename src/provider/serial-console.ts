// The simulated datacenter's serial console (ttyS0) of one server: a getty login prompt that
// takes the administrator's name and the server's current root password, then a small shell.
// Bytes in are keystrokes as a terminal sends them; bytes out are what the terminal prints.

/** What the console shows of its server, read when it opens. */
interface ConsoleFacts {
  hostname: string;
  osTemplate: string;
  os: string;
  /** Public addresses, the primary first. */
  addresses: string[];
  /** The address on the pool's private network, for a server inside a capacity pool. */
  privateAddress: string | null;
  /** When the server last came up. */
  bootedAt: Date;
}

interface ConsoleOutput {
  output: string;
  /** The console hung up (too many failed logins): the connection ends. */
  closed: boolean;
}

/** Failed logins one connection may make before the console hangs up, as login(1) does. */
const MAX_LOGIN_TRIES = 3;
/** Longest line the console keeps; the rest of a longer one is dropped. */
const LINE_MAX = 256;

const RELEASES: Record<string, { pretty: string; osRelease: string; kernel: string }> = {
  'ubuntu-24.04': {
    pretty: 'Ubuntu 24.04 LTS',
    kernel: '6.8.0-49-generic #49-Ubuntu SMP PREEMPT_DYNAMIC',
    osRelease:
      'PRETTY_NAME="Ubuntu 24.04 LTS"\nNAME="Ubuntu"\nVERSION_ID="24.04"\nVERSION="24.04 LTS (Noble Numbat)"\nVERSION_CODENAME=noble\nID=ubuntu\nID_LIKE=debian\nHOME_URL="https://www.ubuntu.com/"',
  },
  'debian-12': {
    pretty: 'Debian GNU/Linux 12',
    kernel: '6.1.0-27-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.115-1',
    osRelease:
      'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nVERSION="12 (bookworm)"\nVERSION_CODENAME=bookworm\nID=debian\nHOME_URL="https://www.debian.org/"',
  },
  'rocky-9': {
    pretty: 'Rocky Linux 9.4 (Blue Onyx)',
    kernel: '5.14.0-427.13.1.el9_4.x86_64 #1 SMP PREEMPT_DYNAMIC',
    osRelease:
      'NAME="Rocky Linux"\nVERSION="9.4 (Blue Onyx)"\nID="rocky"\nID_LIKE="rhel centos fedora"\nVERSION_ID="9.4"\nPRETTY_NAME="Rocky Linux 9.4 (Blue Onyx)"\nHOME_URL="https://rockylinux.org/"',
  },
};

function release(facts: ConsoleFacts) {
  return RELEASES[facts.osTemplate] ?? { pretty: facts.osTemplate, kernel: '6.8.0-generic #1 SMP', osRelease: '' };
}

const crlf = (text: string) => text.replace(/\r?\n/g, '\r\n');

/** The administrator's name on this kind of server. */
const adminUser = (os: string) => (os === 'windows' ? 'Administrator' : 'root');

/**
 * One connection's console. `checkPassword` asks the datacenter whether a password is the
 * server's root password now (it keeps only a slow hash of it).
 */
export class SerialConsole {
  private state: 'login' | 'password' | 'shell' = 'login';
  private line = '';
  private user = '';
  private failures = 0;

  constructor(
    private readonly facts: ConsoleFacts,
    private readonly checkPassword: (password: string) => Promise<boolean>,
  ) {}

  /** The banner and the first login prompt. */
  greeting(): string {
    return crlf(`\n${release(this.facts).pretty} ${this.facts.hostname} ttyS0\n\n${this.loginPrompt()}`);
  }

  /** Feeds keystrokes in; returns what the terminal prints in answer. */
  async input(data: string, now: Date): Promise<ConsoleOutput> {
    let out = '';
    // Cursor keys and other escape sequences edit nothing here.
    const keys = data.replace(/\x1b(\[[0-9;?]*[ -/]*[@-~]|O.|.)/g, '');
    for (const key of keys) {
      const echo = this.state !== 'password';
      if (key === '\r' || key === '\n') {
        const line = this.line;
        this.line = '';
        out += '\r\n';
        const answer = await this.submit(line, now);
        out += answer.output;
        if (answer.closed) return { output: out, closed: true };
      } else if (key === '\x7f' || key === '\b') {
        if (this.line) {
          this.line = this.line.slice(0, -1);
          if (echo) out += '\b \b';
        }
      } else if (key === '\x03') {
        this.line = '';
        out += `^C\r\n${this.state === 'shell' ? this.shellPrompt() : this.loginPrompt()}`;
        if (this.state === 'password') this.state = 'login';
      } else if (key === '\x04' && this.state === 'shell' && !this.line) {
        out += crlf(`logout\n\n${this.loginPrompt()}`);
        this.state = 'login';
      } else if (key >= ' ' && this.line.length < LINE_MAX) {
        this.line += key;
        if (echo) out += key;
      }
    }
    return { output: out, closed: false };
  }

  private loginPrompt(): string {
    return `${this.facts.hostname} login: `;
  }

  private shellPrompt(): string {
    return `${this.user}@${this.facts.hostname}:~# `;
  }

  private async submit(line: string, now: Date): Promise<ConsoleOutput> {
    if (this.state === 'login') {
      if (!line.trim()) return { output: this.loginPrompt(), closed: false };
      this.user = line.trim();
      this.state = 'password';
      return { output: 'Password: ', closed: false };
    }
    if (this.state === 'password') {
      const ok = this.user === adminUser(this.facts.os) && (await this.checkPassword(line));
      if (ok) {
        this.state = 'shell';
        this.failures = 0;
        return {
          output: crlf(`Welcome to ${release(this.facts).pretty}\n\n${this.shellPrompt()}`),
          closed: false,
        };
      }
      this.failures++;
      this.state = 'login';
      if (this.failures >= MAX_LOGIN_TRIES)
        return {
          output: crlf(`\nLogin incorrect\nMaximum number of tries exceeded (${MAX_LOGIN_TRIES})\n`),
          closed: true,
        };
      return { output: crlf(`\nLogin incorrect\n${this.loginPrompt()}`), closed: false };
    }
    const [command, ...args] = line.trim().split(/\s+/);
    if (command === 'exit' || command === 'logout') {
      this.state = 'login';
      return {
        output: crlf(`logout\n\n${release(this.facts).pretty} ${this.facts.hostname} ttyS0\n\n${this.loginPrompt()}`),
        closed: false,
      };
    }
    const printed = command ? this.run(command, args, now) : '';
    return { output: crlf(printed ? `${printed}\n${this.shellPrompt()}` : this.shellPrompt()), closed: false };
  }

  /** One command of the simulated shell; what it prints, without the final newline. */
  private run(command: string, args: string[], now: Date): string {
    const f = this.facts;
    switch (command) {
      case 'whoami':
        return this.user;
      case 'hostname':
        return f.hostname;
      case 'pwd':
        return `/${this.user === 'root' ? 'root' : `home/${this.user}`}`;
      case 'echo':
        return args.join(' ');
      case 'uname':
        return args.includes('-a')
          ? `Linux ${f.hostname} ${release(f).kernel} x86_64 x86_64 x86_64 GNU/Linux`
          : 'Linux';
      case 'uptime':
        return uptime(f.bootedAt, now);
      case 'ip':
        if (['addr', 'address', 'a'].includes(args[0] ?? '')) return ipAddr(f);
        return 'Usage: ip addr';
      case 'ls':
        if (args.includes('/'))
          return 'bin  boot  dev  etc  home  lib  media  mnt  opt  proc  root  run  srv  sys  tmp  usr  var';
        return args.some((a) => /^-\w*a/.test(a)) ? '.  ..  .bashrc  .profile  .ssh' : '';
      case 'cat':
        return args.map((file) => this.cat(file)).join('\n');
      case 'clear':
        return '\x1b[H\x1b[2J';
      case 'help':
        return 'Commands: whoami, hostname, uname -a, uptime, ip addr, ls, cat /etc/os-release, pwd, echo, clear, exit';
      default:
        return `-bash: ${command}: command not found`;
    }
  }

  private cat(file: string): string {
    if (file === '/etc/os-release' && release(this.facts).osRelease) return release(this.facts).osRelease;
    if (file === '/etc/hostname') return this.facts.hostname;
    return `cat: ${file}: No such file or directory`;
  }
}

function uptime(bootedAt: Date, now: Date): string {
  const clock = now.toISOString().slice(11, 19);
  const minutes = Math.max(0, Math.floor((now.getTime() - bootedAt.getTime()) / 60_000));
  const days = Math.floor(minutes / 1440);
  const hm = `${Math.floor((minutes % 1440) / 60)}:${String(minutes % 60).padStart(2, '0')}`;
  const up = days ? `${days} day${days > 1 ? 's' : ''}, ${hm}` : minutes < 60 ? `${minutes} min` : hm;
  return ` ${clock} up ${up},  1 user,  load average: 0.08, 0.03, 0.01`;
}

function ipAddr(f: ConsoleFacts): string {
  const lines = [
    '1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000',
    '    inet 127.0.0.1/8 scope host lo',
  ];
  let n = 2;
  if (f.addresses.length) {
    lines.push(
      `${n++}: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel state UP group default qlen 1000`,
    );
    for (const [i, a] of f.addresses.entries())
      lines.push(`    inet ${a}/32 scope global ${i ? 'secondary ' : ''}eth0`);
  }
  if (f.privateAddress) {
    lines.push(
      `${n}: eth1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1450 qdisc fq_codel state UP group default qlen 1000`,
    );
    lines.push(`    inet ${f.privateAddress}/24 scope global eth1`);
  }
  return lines.join('\n');
}
