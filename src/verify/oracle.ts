/**
 * The window oracle: the exact set of the last w inserted keys (and of the last w + slack), against
 * which every query's answer is scored — a key in the window not reported is a false negative,
 * a key outside window + slack reported a false positive.
 */
import type { DriveHooks, OpSemantics, ResponseFields, StreamProtocol, StreamRequest } from '../families/types.js';
import { ExactWindow } from '../model/window.js';

export interface WindowCounts {
  /** Queried keys inserted within the last `window` inserts, and those not reported. */
  inWindow: number;
  falseNegatives: number;
  /** Queried keys inserted between window and window + slack inserts ago, and those reported. */
  slackTested: number;
  slackHits: number;
  /** Queried keys outside window + slack, and those reported. */
  negatives: number;
  falsePositives: number;
}

export class WindowOracle {
  readonly counts: WindowCounts = {
    inWindow: 0,
    falseNegatives: 0,
    slackTested: 0,
    slackHits: 0,
    negatives: 0,
    falsePositives: 0,
  };
  private readonly exact: ExactWindow;
  private readonly withSlack: ExactWindow;

  constructor(window: number, slack: number) {
    this.exact = new ExactWindow(window);
    this.withSlack = new ExactWindow(window + slack);
  }

  /** Refuses a mix the oracle cannot follow: an op that ages or removes without inserting. */
  static checkMix(p: StreamProtocol, mix: Record<string, number>): void {
    const aging = Object.keys(mix).find((n) => mix[n]! > 0 && (p.semantics[n]?.ages || p.semantics[n]?.removes));
    if (aging) throw new Error(`exactWindow: '${aging}' ages or removes without inserting; leave it out of the mix`);
  }

  /** An accepted request with the model's answer: scored if it queries, then recorded. */
  accept(req: StreamRequest, sem: OpSemantics, fields: ResponseFields, note: unknown, hooks?: DriveHooks): void {
    if (sem.queries) {
      const w = this.counts;
      const hit = fields.hit === 1n;
      const truth = this.exact.has(req.key);
      if (truth) {
        w.inWindow++;
        if (!hit) w.falseNegatives++;
      } else if (this.withSlack.has(req.key)) {
        w.slackTested++;
        if (hit) w.slackHits++;
      } else {
        w.negatives++;
        if (hit) w.falsePositives++;
      }
      hooks?.scored?.(fields, truth, note);
    }
    if (sem.inserts) {
      this.exact.insert(req.key);
      this.withSlack.insert(req.key);
    }
    if (sem.clears) this.clear();
  }

  /** A clear or a reset: the window is empty again. */
  clear(): void {
    this.exact.clear();
    this.withSlack.clear();
  }
}
