/**
 * OpenSSH public keys made with `ssh-keygen` (their private halves thrown away), with the
 * fingerprint and size `ssh-keygen -lf` printed for each: what the API must compute alike.
 */
export const SSH_KEYS = {
  ED25519: {
    line: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPsubplDBCJjOQeAEldzWUJzOdLRNTluZioBNqFp6o++ ada@laptop',
    fingerprint: 'SHA256:O9jW8WpQR8EOR0rvjPB4atpF78tQVT2YxXgIbtcE5KU',
    bits: 256,
  },
  ED25519_OTHER: {
    line: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO7DBmyp5uHiOAGZlcvlWzFb32hCm3KTve3Ojrhck+5w bob@desk',
    fingerprint: 'SHA256:T00LNC1WXOvkqXq9JFQqMd0IpXDzB95KUaQ69WKfBJc',
    bits: 256,
  },
  ECDSA: {
    line: 'ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBBQfnaTu+IhsGGUYvudZ2QDEEH5icDawgRrLZxTGJZOuHkMrLoimxVNHSMum5t1q1eSbbGwIsyxtnnh50TBAU8A= root@vm',
    fingerprint: 'SHA256:7QNRSQXMcZAugeqFSFDXg/ZONRVgKBFGtP6H+8t7Tqg',
    bits: 256,
  },
  RSA_2048: {
    line: 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCsY+Z5ahrXJuQCPvOrPM0oDmjlghH1fQW5Woso5Qo+8UE8EFQ6KFencam9naMfIzZ6B/YB6Bk8y1zoJHpHAtbn1jhUovJKO+PTs9aNVfaiQFbuKdtDpKECNe45w0dxez/cCv5/1avaZ1Lb3x0Iyyr23BkP/iWYJgMxagNW3E/Iza4oRdtxV8cf1ZfPOtjRPVQoURqGq4L5VA3qG6PNtqH0lvFmrH+hmnPejMXIOYRvvn6xP7hn3TxHxYTsVlkJdjo88RafCy/BXCyVEVf85tdWjq4BVpotm92mvlB7znCKTLVSka+cQcsx5H2FrFhjO0HnLDFOH23YIB89QrjBhDwB root@vm',
    fingerprint: 'SHA256:7MGo9j3jLgmzCdpvdJtkOq94NJxee2DRgzb03XHh/+E',
    bits: 2048,
  },
  RSA_1024: {
    line: 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDT98d17gumxzdnTOvQ50ma6UUed6HtKrPSgk0/OALt6IsMlxl+v6zE8tilgla4ix4H6+qf88MxXJ8uRvdv+W7GAOBdD8RMPHtDHOBflJcCdzowblKniaol8GEctlKh3QDZjr8f7vLDlE/Pa19zI5DeFkTPsdWHie4sz8TqEukIkw== root@vm',
    fingerprint: 'SHA256:5Wh2IJo9vHKwMZB2yq0vdWUyhyNLLPaCggC8IAXkNwQ',
    bits: 1024,
  },
} as const;
