import type { Tx } from '../db/tx.ts';

/**
 * TXT records of the simulated DNS (the A/CNAME side is the hosting driver's resolveDns). A
 * real driver asks a resolver; here the operator API sets them (PUT /admin/dns/:hostname).
 */
export interface DnsTxt {
  /** The TXT values published at `hostname`; empty when none. */
  txt(tx: Tx, hostname: string): Promise<string[]>;
  /** Replaces them; null or an empty list removes them. */
  setTxt(tx: Tx, hostname: string, values: string[] | null): Promise<void>;
}

export const simulatedDnsTxt: DnsTxt = {
  async txt(tx, hostname) {
    return (await tx.simDnsTxt.findUnique({ where: { hostname } }))?.values ?? [];
  },
  async setTxt(tx, hostname, values) {
    if (!values?.length) await tx.simDnsTxt.deleteMany({ where: { hostname } });
    else await tx.simDnsTxt.upsert({ where: { hostname }, create: { hostname, values }, update: { values } });
  },
};
