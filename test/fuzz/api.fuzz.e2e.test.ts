import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { availableBackends } from "../support/api-harness.js";
import { type FuzzAnswer, type FuzzRequest, fuzzRequests, OPERATIONS, problemOf, send, sendAll } from "./api-fuzz.js";
import { type ApiFuzzTarget, type FuzzBackend, startApiFuzzTarget } from "./api-fuzz-target.js";

/** Requests per backend, spread over every operation; bench/fuzz-api.ts runs more. */
const COUNT = 2_400;
const SEED = 20_260_412;

describe.each(await availableBackends())("the chatbot API under fuzzing (%s)", (backend: FuzzBackend) => {
  let target: ApiFuzzTarget;
  let dispatcher: Agent;
  let requests: FuzzRequest[];
  let answers: FuzzAnswer[];

  beforeAll(async () => {
    target = await startApiFuzzTarget(backend);
    dispatcher = new Agent({ connections: 8 });
    requests = fuzzRequests(target.fixtures, COUNT, SEED);
    answers = await sendAll(target.url, requests, dispatcher);
  }, 60_000);

  afterAll(async () => {
    await dispatcher?.close();
    await target?.close();
  });

  it("fuzzes every operation, with valid requests among the mutated ones", () => {
    for (const operation of OPERATIONS) {
      const statuses = new Set(
        requests.flatMap((request, index) => (request.operation === operation.name ? [answers[index]?.status] : [])),
      );
      expect(statuses.size, operation.name).toBeGreaterThan(1);
      expect(statuses.has(200) || statuses.has(409), `${operation.name} never succeeded`).toBe(true);
      expect(
        [...statuses].some((status) => status !== undefined && status >= 400),
        operation.name,
      ).toBe(true);
    }
  });

  it("answers every request with the envelope and a 4xx naming the field or the problem, never a 5xx", () => {
    const problems = requests.flatMap((request, index) => {
      const answer = answers[index] as FuzzAnswer;
      const problem = problemOf(request, answer);
      return problem === undefined
        ? []
        : [`${request.operation} (${request.mutation}) → ${answer.status}: ${problem} | ${answer.text.slice(0, 300)}`];
    });
    expect(problems.slice(0, 10)).toEqual([]);
    expect(target.loggedErrors).toEqual([]);
  });

  it("still answers valid requests afterwards", async () => {
    const { fixtures } = target;
    const session = await send(
      target.url,
      {
        operation: "GetSession",
        mutation: "valid",
        method: "POST",
        path: "/chat/Chatbot/GetSession",
        headers: { authorization: fixtures.secretKey, "content-type": "application/json" },
        body: JSON.stringify({ serialNumber: fixtures.serialNumber }),
      },
      dispatcher,
    );
    expect(session.status, session.text).toBe(200);
    const ask = await send(
      target.url,
      {
        operation: "ClientAsk",
        mutation: "valid",
        method: "POST",
        path: "/chat/Chat/ClientAsk",
        headers: { authorization: fixtures.secretKey, "content-type": "application/json" },
        body: JSON.stringify({ sessionID: JSON.parse(session.text).Data.SessionID, content: "Condos in Austin?" }),
      },
      dispatcher,
    );
    expect(ask.status, ask.text).toBe(200);
    expect(JSON.parse(ask.text).Data.content).toMatch(/Austin/);
  });
});
