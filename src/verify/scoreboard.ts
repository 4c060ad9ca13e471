/**
 * The scoreboard of one stream: the requests accepted and not yet answered, in order. A response
 * answers the oldest; its tag (and, where the expected answer is known at acceptance, every
 * response field) must match. A reset loses everything outstanding.
 */
import type { PortField, ResponseFields } from '../families/types.js';

/** An accepted request awaiting its response. */
export interface Outstanding {
  tag: number;
}

export class Scoreboard<T extends Outstanding> {
  private queue: T[] = [];
  private head = 0; // queue[head] is the oldest outstanding

  get outstanding(): number {
    return this.queue.length - this.head;
  }

  accept(x: T): void {
    this.queue.push(x);
  }

  /** The request the response answers: the oldest outstanding (undefined: a response nobody asked for). */
  answer(): T | undefined {
    const want = this.head < this.queue.length ? this.queue[this.head++] : undefined;
    // Drop the answered ones now and then (not every response: a shift is linear).
    if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    return want;
  }

  /** A reset: every outstanding request is lost; returns how many. */
  lose(): number {
    const n = this.outstanding;
    this.queue.length = 0;
    this.head = 0;
    return n;
  }
}

/** Whether a response has the expected tag and every response field. */
export function sameResponse(
  fields: readonly PortField[],
  want: { tag: number; fields: ResponseFields },
  tag: number,
  got: ResponseFields,
): boolean {
  return want.tag === tag && !fields.some((fd) => want.fields[fd.name] !== got[fd.name]);
}

/** A response as a mismatch report shows it. */
export function formatResponse(fields: readonly PortField[], tag: number, r: ResponseFields): string {
  return [`tag ${tag}`, ...fields.map((fd) => `${fd.name} ${r[fd.name] ?? 'missing'}`)].join(' ');
}

/** The first few mismatches of a run and the count of all. */
export class Mismatches<M> {
  readonly first: M[] = [];
  count = 0;
  constructor(private readonly keep = 20) {}
  add(m: M): void {
    if (this.first.length < this.keep) this.first.push(m);
    this.count++;
  }
}
