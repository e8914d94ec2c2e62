import { isObject } from '../../util/guards.js';

/** A pending injected fault (POST /_mock/faults). */
export interface Fault {
  kind: 'latency' | 'error' | 'drop';
  /** Requests still to hit. */
  count: number;
  ms?: number;
  status?: number;
  /** Only requests whose path starts with this. */
  path?: string;
}

/** Faults for the next N matching non-control requests, first match first. */
export class FaultQueue {
  private faults: Fault[] = [];

  /** Validates a POST body; returns the fault or a problem. */
  static parse(body: unknown): Fault | string {
    if (!isObject(body)) return 'body must be a JSON object';
    const b = body;
    if (b.kind !== 'latency' && b.kind !== 'error' && b.kind !== 'drop') {
      return 'kind must be "latency", "error" or "drop"';
    }
    const count = b.count ?? 1;
    if (!Number.isInteger(count) || (count as number) < 1 || (count as number) > 1_000_000) {
      return 'count must be a positive integer';
    }
    const fault: Fault = { kind: b.kind, count: count as number };
    if (b.kind === 'latency') {
      const ms = b.ms ?? 1000;
      if (typeof ms !== 'number' || !(ms >= 0 && ms <= 600_000)) return 'ms must be 0..600000';
      fault.ms = ms;
    } else if (b.ms !== undefined) {
      return 'ms applies to kind "latency" only';
    }
    if (b.kind === 'error') {
      const status = b.status ?? 500;
      if (!Number.isInteger(status) || (status as number) < 400 || (status as number) > 599) {
        return 'status must be an HTTP error status 400..599';
      }
      fault.status = status as number;
    } else if (b.status !== undefined) {
      return 'status applies to kind "error" only';
    }
    if (b.path !== undefined) {
      if (typeof b.path !== 'string' || !b.path.startsWith('/')) return 'path must start with "/"';
      fault.path = b.path;
    }
    return fault;
  }

  add(fault: Fault): void {
    this.faults.push(fault);
  }

  list(): Fault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  clear(): void {
    this.faults = [];
  }

  /** The fault for this request, if any; counts it down. */
  take(path: string): Fault | undefined {
    if (this.faults.length === 0) return undefined;
    const index = this.faults.findIndex((f) => f.path === undefined || path.startsWith(f.path));
    if (index === -1) return undefined;
    const fault = this.faults[index]!;
    fault.count -= 1;
    if (fault.count === 0) this.faults.splice(index, 1);
    return fault;
  }
}
