import { afterEach, beforeEach, expect, it } from "vitest";
import type { Budget } from "../../../../src/bridge/channel.js";
import type {
  BudgetRole,
  BudgetStore,
  ChannelBudgets,
  Charge,
  SpendRequest,
} from "../../../../src/bridge/reply/budgets/budget-store.js";
import { FINALS_MARK_SLACK_MS } from "../../../../src/bridge/reply/budgets/budget-store.js";

/** Opens budget stores for the contract: `open` twice gives two handles on the same budgets (two processes). */
export interface BudgetHarness {
  open(): Promise<BudgetStore>;
  /** Closes what `open` opened and removes what the test left. */
  cleanup(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until the clock has moved by at least `ms`. A timer alone can fire a few milliseconds early by the clock:
 * it counts from the event loop's cached time, which lags the clock when the loop is busy (a loaded CI machine).
 */
async function waitOut(ms: number): Promise<void> {
  const end = Date.now() + ms;
  for (let left = ms; left > 0; left = end - Date.now()) await sleep(left);
}

const charge = (key: string, budget: Budget, role: BudgetRole, reserve = 0): Charge => ({
  key,
  budget,
  reserve,
  role,
});

/**
 * What every {@link BudgetStore} must do, on real time: the Redis store times everything by Redis's clock, so
 * the waits are checked within a few milliseconds of what they must be, never below.
 */
export function budgetStoreContract(harness: BudgetHarness): void {
  let budgets: ChannelBudgets;
  let store: BudgetStore;

  beforeEach(async () => {
    store = await harness.open();
    budgets = store.forChannel("telegram", "bot-a");
  });
  afterEach(() => harness.cleanup());

  const window = charge("bot", { max: 3, windowMs: 300 }, "bot", 1);
  const chatOf = (id: string) => charge(`chat:${id}`, { perSecond: 5, burst: 2 }, "chat", 1);
  const final = (...charges: Charge[]): SpendRequest => ({ priority: "final", charges });
  const update = (...charges: Charge[]): SpendRequest => ({ priority: "update", charges });

  it("grants exactly `max` calls in a sliding window, then tells when the oldest leaves it", async () => {
    const first = await budgets.spend([final(chatOf("1"), window), final(chatOf("2"), window)]);
    expect(first.map((outcome) => outcome.granted)).toEqual([true, true]);
    await sleep(100);
    expect((await budgets.spend([final(chatOf("3"), window)]))[0]?.granted).toBe(true);
    const [refused] = await budgets.spend([final(chatOf("4"), window)]);
    expect(refused).toMatchObject({ granted: false, laneWaitMs: 0, short: false, paused: false });
    // The first two calls leave the window 300 ms after they were granted, about 100 ms ago.
    expect(refused?.queueWaitMs).toBeGreaterThan(150);
    expect(refused?.queueWaitMs).toBeLessThanOrEqual(200);
    await waitOut(refused?.queueWaitMs ?? 0);
    const again = await budgets.spend([final(chatOf("4"), window), final(chatOf("5"), window)]);
    expect(again.map((outcome) => outcome.granted)).toEqual([true, true]);
  });

  it("keeps the reserve for finals: updates stop one call short, a final takes the last one", async () => {
    const updates = await budgets.spend([update(chatOf("1"), window), update(chatOf("2"), window)]);
    expect(updates.map((outcome) => outcome.granted)).toEqual([true, true]);
    const [third] = await budgets.spend([update(chatOf("3"), window)]);
    expect(third?.granted).toBe(false);
    expect(third?.queueWaitMs).toBeGreaterThan(250);
    expect((await budgets.spend([final(chatOf("3"), window)]))[0]?.granted).toBe(true);
  });

  it("spends all of a call's budgets or none, and stops a batch at the first call the bot refuses", async () => {
    const chat = chatOf("1");
    const outcomes = await budgets.spend([
      final(chat, window),
      final(chat, window),
      // The chat's bucket (burst 2) is empty: this call waits on its own and the batch goes on.
      final(chat, window),
      final(chatOf("2"), window),
      // The window is full: this call waits for the bot, and nothing behind it is tried.
      final(chatOf("3"), window),
      final(chatOf("4"), window),
    ]);
    expect(outcomes.map((outcome) => outcome.granted)).toEqual([true, true, false, true, false]);
    expect(outcomes[2]?.laneWaitMs).toBeGreaterThan(150); // one token at 5/s: 200 ms
    expect(outcomes[2]?.laneWaitMs).toBeLessThanOrEqual(200);
    expect(outcomes[2]?.queueWaitMs).toBe(0); // the window still had room for it: nothing of it was spent
    expect(outcomes[4]?.queueWaitMs).toBeGreaterThan(250);
    // Chat 3 was refused by the bot, so its own budget is untouched: both its calls fit once the window has room.
    await waitOut(outcomes[4]?.queueWaitMs ?? 0);
    const later = await budgets.spend([final(chatOf("3"), window), final(chatOf("3"), window)]);
    expect(later.map((outcome) => outcome.granted)).toEqual([true, true]);
  });

  it("tells a granted call when its chat has room again, for a final and for an update", async () => {
    const [granted] = await budgets.spend([update(chatOf("1"), window)]);
    // One of two tokens left at 5/s: a final may go now, an update (one token kept for finals) in 200 ms.
    expect(granted?.next.final).toBe(0);
    expect(granted?.next.update).toBeGreaterThan(150);
    expect(granted?.next.update).toBeLessThanOrEqual(200);
  });

  it("skips an update whose operation is short, and makes a final wait for it", async () => {
    const edit = charge("op:edit", { perSecond: 2, burst: 2 }, "operation", 1);
    expect((await budgets.spend([update(chatOf("1"), edit)]))[0]?.granted).toBe(true);
    const outcomes = await budgets.spend([
      update(chatOf("2"), edit),
      final(chatOf("3"), edit),
      final(chatOf("4"), edit),
    ]);
    expect(outcomes.map((outcome) => [outcome.granted, outcome.short])).toEqual([
      [false, true],
      [true, false],
      [false, false],
    ]);
    expect(outcomes[2]?.queueWaitMs).toBeGreaterThan(250); // half a second per edit at 2/s
  });

  it("shares budgets between handles on the same store, and keeps bots and channels apart", async () => {
    const other = (await harness.open()).forChannel("telegram", "bot-a");
    expect((await budgets.spend([final(chatOf("1"), window), final(chatOf("2"), window)])).length).toBe(2);
    const outcomes = await other.spend([final(chatOf("3"), window), final(chatOf("4"), window)]);
    expect(outcomes.map((outcome) => outcome.granted)).toEqual([true, false]);
    const otherBot = store.forChannel("telegram", "bot-b");
    expect((await otherBot.spend([final(chatOf("1"), window)]))[0]?.granted).toBe(true);
    const otherChannel = store.forChannel("slack", "bot-a");
    expect((await otherChannel.spend([final(chatOf("1"), window)]))[0]?.granted).toBe(true);
  });

  it("makes updates everywhere yield while a final waits for the bot", async () => {
    const other = (await harness.open()).forChannel("telegram", "bot-a");
    await budgets.spend([final(chatOf("1"), window), final(chatOf("2"), window), final(chatOf("3"), window)]);
    const [waiting] = await budgets.spend([final(chatOf("4"), window)]);
    expect(waiting?.granted).toBe(false);
    await sleep((waiting?.queueWaitMs ?? 0) + 5);
    // The window is empty again, but the final has not had its turn: another process's update yields…
    const [yielded] = await other.spend([update(chatOf("5"), window)]);
    expect(yielded?.granted).toBe(false);
    expect(yielded?.queueWaitMs).toBeGreaterThan(0);
    expect(yielded?.queueWaitMs).toBeLessThanOrEqual(FINALS_MARK_SLACK_MS);
    // …while the final goes, and once the mark has passed so does the update.
    expect((await budgets.spend([final(chatOf("4"), window)]))[0]?.granted).toBe(true);
    await sleep((yielded?.queueWaitMs ?? 0) + 5);
    expect((await other.spend([update(chatOf("5"), window)]))[0]?.granted).toBe(true);
  });

  it("pauses budgets after a rate limit: nothing until the pause ends, then one call of a bucket", async () => {
    const bot = charge("bot", { perSecond: 10, burst: 5 }, "bot", 1);
    const chat = chatOf("1");
    await budgets.pause([chat, bot], 300);
    const [final1] = await budgets.spend([final(chatOf("2"), bot)]);
    expect(final1).toMatchObject({ granted: false, paused: true });
    expect(final1?.queueWaitMs).toBeGreaterThan(250);
    expect(final1?.queueWaitMs).toBeLessThanOrEqual(300);
    const [update1] = await budgets.spend([update(chat)]);
    expect(update1).toMatchObject({ granted: false, paused: true });
    expect(update1?.laneWaitMs).toBeGreaterThan(250);
    await waitOut(final1?.queueWaitMs ?? 0);
    // The bucket (burst 5) holds one call when the pause ends, then refills at 10/s.
    const after = await budgets.spend([final(chatOf("2"), bot), final(chatOf("3"), bot)]);
    expect(after.map((outcome) => outcome.granted)).toEqual([true, false]);
    expect(after[1]?.paused).toBe(false);
    expect(after[1]?.queueWaitMs).toBeLessThanOrEqual(100);
  });

  it("moves a late call later in its windows, so the calls after it keep their distance", async () => {
    const granted = await budgets.spend([
      final(chatOf("1"), window),
      final(chatOf("2"), window),
      final(chatOf("3"), window),
    ]);
    await budgets.late([window], granted[0]?.stamp ?? "", 150);
    const [refused] = await budgets.spend([final(chatOf("4"), window)]);
    expect(refused?.queueWaitMs).toBeGreaterThan(250);
    await waitOut(refused?.queueWaitMs ?? 0);
    // Two of the three calls have left the window; the one moved counts for 150 ms more.
    const outcomes = await budgets.spend([
      final(chatOf("4"), window),
      final(chatOf("5"), window),
      final(chatOf("6"), window),
    ]);
    expect(outcomes.map((outcome) => outcome.granted)).toEqual([true, true, false]);
    expect(outcomes[2]?.queueWaitMs).toBeGreaterThan(100);
    expect(outcomes[2]?.queueWaitMs).toBeLessThanOrEqual(150);
  });

  it("keeps a window's calls in time order when a call granted now is earlier than one moved", async () => {
    const pair = charge("bot", { max: 2, windowMs: 300 }, "bot", 1);
    const [first] = await budgets.spend([final(chatOf("1"), pair)]);
    await budgets.late([pair], first?.stamp ?? "", 200);
    expect((await budgets.spend([final(chatOf("2"), pair)]))[0]?.granted).toBe(true);
    // An update needs the whole window free: it waits for the latest call, the moved one, 500 ms from the first.
    const [refused] = await budgets.spend([update(chatOf("3"), pair)]);
    expect(refused?.queueWaitMs).toBeGreaterThan(450);
    expect(refused?.queueWaitMs).toBeLessThanOrEqual(500);
  });
}
