import { describe } from "vitest";
import type { BudgetStore } from "../../../../src/bridge/reply/budgets/budget-store.js";
import { LocalBudgets } from "../../../../src/bridge/reply/budgets/local-budgets.js";
import { budgetStoreContract } from "./budget-contract.js";

describe("LocalBudgets", () => {
  // One process: every handle on "the same store" is the same object.
  let shared: BudgetStore | undefined;
  budgetStoreContract({
    open: async () => {
      shared ??= new LocalBudgets();
      return shared;
    },
    cleanup: async () => {
      shared = undefined;
    },
  });
});
