import type { Operation } from "../channel.js";
import type { ReplyTarget } from "../inbound.js";
import type { Charge } from "./budgets/budget-store.js";
import { Fifo } from "./fifo.js";

/**
 * How much a call matters. A `final` carries text the user must keep and always runs; an `update` shows
 * intermediate text and may be skipped; `typing` is a courtesy that runs only when the budget has room.
 */
export type Priority = "final" | "update" | "typing";

/**
 * What a call costs beyond its chat's and the bot's budgets, for channels with per-operation limits. `prepay`
 * takes a token of a second operation now for a call the same message will need later (the edit that finishes a
 * posted message); that later call is then `prepaid` and takes no token of its own operation.
 */
export interface CallCost {
  operation?: Operation | undefined;
  prepay?: Operation | undefined;
  prepaid?: boolean | undefined;
  /**
   * An update that shows the first text of its answer: its user sees nothing of it yet, so it goes ahead of the
   * bot's other updates (whose users already read something). Updates only.
   */
  opening?: boolean | undefined;
  /**
   * Told when the pacer skips this update because a budget of its operation (or the one it prepays) is short, as
   * opposed to a newer update or the final taking its place: the caller may then show the text another way (an
   * answer that cannot open a native stream opens as a posted message). Updates only.
   */
  onShort?: (() => void) | undefined;
}

/** A call waiting for budget, with the promise it settles. */
export interface Job {
  priority: Priority;
  cost: CallCost;
  op: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** When it was scheduled (the pacer's clock), for the budget-wait metric. */
  queuedAt: number;
}

/** One chat's queue, with what the budget store last said of its budget. Calls in one chat run one at a time. */
export class ChatLane {
  readonly finals = new Fifo<Job>();
  /** The latest pending update per stream, oldest stream first. */
  readonly updates = new Map<unknown, Job>();
  busy = false;
  /** Which bot queue holds this lane, if any. */
  readyAs: "final" | "update" | undefined;
  /** Bumped on each entry into a bot queue; older entries are stale and skipped. */
  ticket = 0;
  /** At most one timer per lane: the wait for this chat's own budget. */
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Identifies the latest time the lane went idle, so stale idle records are ignored. */
  idleStamp = 0;
  /**
   * When the chat's budget allows a final, and an update, as the store last said (the pacer's clock): until then
   * the lane waits on its own timer instead of asking. Another process rarely spends from the same chat, and if
   * it does the store refuses and tells the new time.
   */
  readonly readyAt = { final: Number.NEGATIVE_INFINITY, update: Number.NEGATIVE_INFINITY };
  /** Until when a rate limit pauses this chat, as far as this process knows: updates are dropped meanwhile. */
  pausedUntil = Number.NEGATIVE_INFINITY;

  constructor(
    readonly target: ReplyTarget,
    /** The chat's budget, as the pacer spends it. */
    readonly charge: Charge,
  ) {}

  get key(): string {
    return this.target.chatId;
  }

  /** What runs next: finals before updates. */
  nextKind(): "final" | "update" | undefined {
    return this.finals.size > 0 ? "final" : this.updates.size > 0 ? "update" : undefined;
  }

  /** Nothing queued, running, or waiting for budget. */
  get quiet(): boolean {
    return !this.busy && this.readyAs === undefined && this.finals.size === 0 && this.updates.size === 0;
  }

  /** Queues an update; one pending for the same stream is replaced in place (keeping its turn) and resolves undefined. */
  offerUpdate(stream: unknown, job: Job): void {
    const pending = this.updates.get(stream);
    if (!pending) {
      this.updates.set(stream, job);
      return;
    }
    pending.resolve(undefined);
    pending.op = job.op;
    pending.cost = job.cost;
    pending.resolve = job.resolve;
    pending.reject = job.reject;
  }

  /** Withdraws the pending update of `stream` (it resolves undefined); true when there was one. */
  withdrawUpdate(stream: unknown): boolean {
    const pending = this.updates.get(stream);
    if (!pending) return false;
    this.updates.delete(stream);
    pending.resolve(undefined);
    return true;
  }

  /** Drops every pending update: after a rate limit their text would be stale by the time they may go. */
  dropUpdates(): void {
    for (const pending of this.updates.values()) pending.resolve(undefined);
    this.updates.clear();
  }

  /** The job {@link take} would return, left in place. */
  peek(kind: "final" | "update"): Job | undefined {
    if (kind === "final") return this.finals.peek();
    const first = this.updates.values().next();
    return first.done ? undefined : first.value;
  }

  /** Takes the next job of `kind`, oldest stream first for updates. */
  take(kind: "final" | "update"): Job | undefined {
    if (kind === "final") return this.finals.shift();
    const first = this.updates.entries().next();
    if (first.done) return undefined;
    this.updates.delete(first.value[0]);
    return first.value[1];
  }

  clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** A lane's place in one of the bot's queues. */
export interface ReadyEntry {
  lane: ChatLane;
  ticket: number;
}

/** The live head of a bot queue, dropping entries whose lane has since moved or run. */
export function headOf(queue: Fifo<ReadyEntry>, kind: "final" | "update"): ReadyEntry | undefined {
  for (let entry = queue.peek(); entry; entry = queue.peek()) {
    if (entry.ticket === entry.lane.ticket && entry.lane.readyAs === kind) return entry;
    queue.shift();
  }
  return undefined;
}
