import { describe, expect, it } from "vitest";
import { EmbeddedEngine } from "../../../src/server/engine/embedded/embedded-engine.js";
import { OpenAiProvider } from "../../../src/server/engine/openai-provider.js";
import { createEngines } from "../../../src/server/engine/registry.js";

describe("engine registry", () => {
  it("offers the embedded engine and an unavailable LLM when none is configured", () => {
    const engines = createEngines({ baseUrl: undefined, apiKey: undefined, model: undefined });
    expect(engines.models()).toEqual([
      { Key: "1", Value: "chatbridge-listings", Status: true },
      { Key: "2", Value: "OpenAI-compatible LLM (set LLM_BASE_URL and LLM_MODEL)", Status: false },
    ]);
    expect(engines.defaultModelKey).toBe("1");
    expect(engines.engineFor("1")).toBeInstanceOf(EmbeddedEngine);
    expect(engines.engineFor("2")).toBeUndefined();
    expect(engines.engineFor("gpt-4o")).toBeUndefined();
  });

  it("needs both the base URL and the model for the LLM", () => {
    const engines = createEngines({ model: "llama3.1" });
    expect(engines.models()[1]).toEqual({ Key: "2", Value: "llama3.1", Status: false });
    expect(engines.engineFor("2")).toBeUndefined();
  });

  it("offers the configured LLM under key 2 and keeps the embedded engine the default", () => {
    const engines = createEngines({ baseUrl: "http://127.0.0.1:11434/v1", model: "llama3.1" });
    expect(engines.models()).toEqual([
      { Key: "1", Value: "chatbridge-listings", Status: true },
      { Key: "2", Value: "llama3.1", Status: true },
    ]);
    expect(engines.defaultModelKey).toBe("1");
    expect(engines.engineFor("2")).toBeInstanceOf(OpenAiProvider);
    expect(engines.engineFor("2")?.models).toEqual([{ key: "2", name: "llama3.1", available: true }]);
  });
});
