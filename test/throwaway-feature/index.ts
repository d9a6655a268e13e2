import type { AnswerStep } from "../../src/bridge/answer-step.js";
import type { Feature } from "../../src/bridge/feature.js";

/** What the ping feature offers others: how many pings a conversation sent. */
export interface PingApi {
  count(conversation: string): Promise<number>;
}

/**
 * A throwaway feature, written only to prove the feature contract: one folder, one step. `/ping` is answered
 * `pong <n>`, counting the conversation's pings in the bridge store; the count is one step of the job's ledger, so
 * a job resumed after a crash neither counts twice nor answers twice. Nothing outside this folder knows it.
 */
export const ping: Feature<PingApi> = {
  name: "ping",
  open({ store }) {
    const key = (conversation: string) => `ping:${conversation}`;
    const count = async (conversation: string) => (await store.keyv.get<number>(key(conversation))) ?? 0;
    const step: AnswerStep = {
      name: "ping",
      async handle(turn) {
        if (turn.text.trim().toLowerCase() !== "/ping") return "next";
        const pings = await turn.once("ping", async () => {
          const next = (await count(turn.conversation)) + 1;
          await store.keyv.set(key(turn.conversation), next);
          return next;
        });
        // Like every step that answers, the greeting first on a first contact.
        await turn.greetFirst();
        await turn.sendOnce("ping-reply", { text: `pong ${pings}`, format: "plain" });
        return "handled";
      },
    };
    return { api: { count }, steps: { ping: step } };
  },
};
