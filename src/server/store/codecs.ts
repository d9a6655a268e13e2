import type { EpochMs, Flag } from "./tables.js";

/**
 * Conversions between record values and the portable column representations of tables.ts: both databases
 * store the same integers and text, so records come back identical from either.
 */

/** Where the store's timestamps (createdAt, updatedAt) come from; services and tests may share one clock. */
export type Clock = () => Date;

/** A timestamp column → Date. */
export function toDate(ms: EpochMs): Date {
  return new Date(ms);
}

/** A boolean → its 0/1 column. */
export function toFlag(value: boolean): Flag {
  return value ? 1 : 0;
}

/** A 0/1 column → boolean. */
export function fromFlag(flag: Flag): boolean {
  return flag === 1;
}

/** The number of rows a count or a write reports; drivers give number or bigint. */
export function toCount(value: number | bigint | string): number {
  return Number(value);
}
