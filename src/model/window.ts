/** Deliberately naive models every family is checked against. */

/**
 * The exact sliding window: the last w inserted keys (a deliberately naive model). With
 * w = Infinity: every key inserted since the last clear (a set filter's promise).
 */
export class ExactWindow {
  private readonly ring: bigint[];
  private readonly counts = new Map<bigint, number>();
  private next = 0;
  private size = 0;

  constructor(readonly w: number) {
    this.ring = Number.isFinite(w) ? new Array<bigint>(w) : [];
  }

  insert(key: bigint): void {
    if (!Number.isFinite(this.w)) {
      this.counts.set(key, 1);
      return;
    }
    if (this.size === this.w) {
      const old = this.ring[this.next]!;
      const c = this.counts.get(old)! - 1;
      if (c === 0) this.counts.delete(old);
      else this.counts.set(old, c);
    } else this.size++;
    this.ring[this.next] = key;
    this.next = (this.next + 1) % this.w;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  has(key: bigint): boolean {
    return this.counts.has(key);
  }

  clear(): void {
    this.counts.clear();
    this.next = 0;
    this.size = 0;
  }
}
