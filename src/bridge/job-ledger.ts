import type { ConversationLease } from "./store/work-queue.js";

/** What the ledger keeps for one job: a batch of a conversation's items answered together. */
interface JobRecord {
  /** The items of the batch; a resumed job answers exactly these, whatever arrived since. */
  batch: string[];
  /** How many times the job was started; a job that keeps ending its process is given up. */
  attempts: number;
  /** What each step did, by name (see the bridge): a step recorded here is not done again. */
  steps: Record<string, unknown>;
}

/**
 * The answer ledger of one job: how far its answer got, step by step (greeted, handed off, asked upstream with which
 * session, which platform messages carry the answer and what they show, delivered). Every write is fenced by the
 * conversation's lease, so a holder that lost its lease cannot record anything; a holder that takes the job over
 * reads what was done and continues from there instead of doing it twice.
 */
export class JobLedger {
  readonly #lease: ConversationLease;
  readonly #jobId: string;
  readonly #record: JobRecord;
  readonly #resumed: boolean;
  #writes: Promise<void> = Promise.resolve();
  /** The write queued behind the one under way, not started yet: later records join it. */
  #queued: Promise<void> | undefined;

  private constructor(lease: ConversationLease, jobId: string, record: JobRecord, resumed: boolean) {
    this.#lease = lease;
    this.#jobId = jobId;
    this.#record = record;
    this.#resumed = resumed;
  }

  /**
   * The ledger of the job named by its first item, counting this attempt. A job with a record from an earlier
   * attempt keeps that record's batch (`batch` is then ignored).
   */
  static async open(lease: ConversationLease, jobId: string, batch: string[]): Promise<JobLedger> {
    const stored = asRecord(await lease.readLedger(jobId));
    const record: JobRecord = stored ? { ...stored, attempts: stored.attempts + 1 } : { batch, attempts: 1, steps: {} };
    const ledger = new JobLedger(lease, jobId, record, stored !== undefined);
    await lease.writeLedger(jobId, record);
    return ledger;
  }

  /** The batch recorded for job `jobId`, if it was started before (so the same items are answered together). */
  static async recordedBatch(lease: ConversationLease, jobId: string): Promise<string[] | undefined> {
    return asRecord(await lease.readLedger(jobId))?.batch;
  }

  /** The job's id: its first item's, the same for every attempt. */
  get jobId(): string {
    return this.#jobId;
  }

  /** The items this job answers. */
  get batch(): readonly string[] {
    return this.#record.batch;
  }

  /** True when an earlier attempt of this job started (and did not finish). */
  get resumed(): boolean {
    return this.#resumed;
  }

  /** Attempts so far, this one included. */
  get attempts(): number {
    return this.#record.attempts;
  }

  /** What step `name` recorded, if it did. */
  step<T>(name: string): T | undefined {
    return this.#record.steps[name] as T | undefined;
  }

  /** True when step `name` recorded anything. */
  has(name: string): boolean {
    return name in this.#record.steps;
  }

  /**
   * Records what step `name` did, in order with the other writes; rejects with LeaseLostError when the lease is
   * lost (the caller must then stop writing to the platform). Each write stores the whole record as it is when the
   * write starts, so records made while another write is under way share the next one.
   */
  record(name: string, value: unknown): Promise<void> {
    this.#record.steps[name] = value;
    if (this.#queued) return this.#queued;
    const write = this.#writes.then(() => {
      this.#queued = undefined;
      // The store serialises the record before its first await: what is recorded later goes in the next write.
      return this.#lease.writeLedger(this.#jobId, this.#record);
    });
    // One failed write fails the ones queued after it too: the lease is gone.
    this.#writes = write;
    this.#queued = write;
    return write;
  }

  /**
   * Remembers what step `name` decided without a write of its own: the next {@link record} stores it along. For a
   * step that changed nothing outside the ledger, so that a holder redoing it after a crash decides the same (a
   * message that is no request for a person, the session already in use, a text-only question's plan): most
   * messages then cost two writes before they are asked instead of seven.
   */
  note(name: string, value: unknown): void {
    this.#record.steps[name] = value;
  }

  /** Resolves when every write so far landed. */
  flushed(): Promise<void> {
    return this.#writes;
  }
}

/** `value` as a job record, or undefined when it is not one (absent, or written by another version). */
function asRecord(value: unknown): JobRecord | undefined {
  const record = value as Partial<JobRecord> | undefined;
  if (!record || !Array.isArray(record.batch) || typeof record.attempts !== "number") return undefined;
  if (typeof record.steps !== "object" || record.steps === null) return undefined;
  return record as JobRecord;
}

/** A job of a conversation, as its holder runs it. */
export interface Job {
  conversation: string;
  ledger: JobLedger;
  /**
   * Aborts when this process may no longer write to the chat: its lease is lost, a ledger write failed, or it hands
   * the conversation over at shutdown. Nothing more is sent then, and the job is left for the next holder.
   */
  fence: AbortSignal;
  /** Puts the fence down (a ledger write failed: the lease is gone). */
  lose(reason: unknown): void;
}
