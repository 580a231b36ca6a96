/** What the pool page reads of a pool's servers and capacity, shared by its sections. */

export interface PoolMember {
  id: string;
  label: string;
  status: string;
  productId: string;
  vcpu: number;
  ramMb: number;
  diskGb: number;
  osTemplate: string;
  ips: string[];
}

export interface Resources {
  vcpu: number;
  ramMb: number;
  diskGb: number;
  ips: number;
}
