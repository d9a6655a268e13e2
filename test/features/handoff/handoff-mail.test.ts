import { describe, expect, it } from "vitest";
import { followUpMail, handoffMail } from "../../../src/features/handoff/handoff-mail.js";

const at = Date.UTC(2026, 10, 24, 15, 30);
const handoff = {
  conversation: "telegram:default:4242",
  channel: "telegram",
  user: { id: "4242", name: "Ana <Gómez>", handle: "@ana", link: "https://t.me/ana" },
  requestedAt: at,
  timeZone: "America/Chicago",
};

describe("handoff mails", () => {
  it("say who, where, when and how to reach the user, with the conversation, in text and escaped HTML", () => {
    const mail = handoffMail("agents@example.com", handoff, [
      { from: "user", text: "3 bedrooms in Austin?", at: at - 60_000 },
      { from: "bot", text: "Here are 2 homes: <b>Oak St</b>", at: at - 59_000 },
      { from: "user", text: "talk to a human", at },
    ]);
    expect(mail.to).toBe("agents@example.com");
    expect(mail.subject).toBe("Talk to a human: Ana <Gómez> (@ana) on Telegram");
    expect(mail.text).toContain("Reach them: https://t.me/ana");
    // 15:30 UTC is 09:30 in Chicago in November.
    expect(mail.text).toContain("Time: 24 Nov 2026, 09:30 (America/Chicago)");
    expect(mail.text).toContain("] Ana <Gómez>: 3 bedrooms in Austin?\n[");
    expect(mail.text).toContain("] Bot: Here are 2 homes: <b>Oak St</b>");
    expect(mail.html).toContain('<a href="https://t.me/ana">https://t.me/ana</a>');
    expect(mail.html).toContain("Here are 2 homes: &lt;b&gt;Oak St&lt;/b&gt;");
    expect(mail.html).not.toContain("<Gómez>");
  });

  it("fall back to UTC and to the platform when there is no zone or link", () => {
    const mail = handoffMail("a@example.com", { ...handoff, user: { id: "U1" }, timeZone: "Not/AZone" }, []);
    expect(mail.subject).toBe("Talk to a human: user U1 on Telegram");
    expect(mail.text).toContain("Time: 24 Nov 2026, 15:30 (UTC)");
    expect(mail.text).toContain("Answer them on the platform where they wrote.");
  });

  it("forward follow-ups under the same subject", () => {
    const mail = followUpMail("agents@example.com", handoff, [{ from: "user", text: "anyone there?", at }]);
    expect(mail.subject).toBe("Re: Talk to a human: Ana <Gómez> (@ana) on Telegram");
    expect(mail.text).toContain("anyone there?");
  });
});
