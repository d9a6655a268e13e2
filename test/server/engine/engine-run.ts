import { EmbeddedEngine } from "../../../src/server/engine/embedded/embedded-engine.js";
import type { AnswerEngine, EngineEvent, EngineRequest } from "../../../src/server/engine/types.js";
import { requestFor } from "./listings-fixture.js";

/** Everything an engine streamed for one request. */
export interface Run {
  events: EngineEvent[];
  fragments: string[];
  text: string;
  done: Extract<EngineEvent, { type: "done" }> | undefined;
}

/** Runs an engine to the end and collects its events. */
export async function run(engine: AnswerEngine, request: EngineRequest): Promise<Run> {
  const events: EngineEvent[] = [];
  for await (const event of engine.answer(request)) events.push(event);
  const fragments = events.flatMap((event) => (event.type === "text" ? [event.text] : []));
  const done = events.find((event) => event.type === "done");
  return { events, fragments, text: fragments.join(""), done };
}

const embedded = new EmbeddedEngine();

/** Asks the embedded engine over the fixture's listings: what it streamed, and every search it made. */
export async function ask(question: string, options: Parameters<typeof requestFor>[1] = {}) {
  const request = requestFor(question, options);
  return { ...(await run(embedded, request)), searches: request.searches };
}
