import { describe, expect, it } from "vitest";
import { AnswerSession } from "../../src/answer/model.js";
import { type JsonResult, ModelOutputError, type Models } from "../../src/models/index.js";

const context = { alias: "answerer", target: "stub:m" };
const usage = { prompt_tokens: 5, completion_tokens: 2, estimated: false };

/** Models that send one request per call, taken from the call's budget as the router does. */
function models(json: () => Promise<JsonResult>): Models {
  return {
    json: (_alias, input) => {
      if (input.budget) {
        input.budget.left--;
        input.budget.sent++;
      }
      return json();
    },
    embed: async () => [],
    score: async () => 0,
    rerank: async () => ({ relevance: [], target: "" }),
  };
}

const evidence = { rendered: "[a] …", shown: ["a"] };

describe("an answer's model session", () => {
  it("abandons a call still running when the budget's time is up: 503 answer_model_unavailable", async () => {
    const session = new AnswerSession(
      models(() => new Promise(() => {})),
      "answerer",
      30,
    );
    await expect(session.answer("q", evidence)).rejects.toMatchObject({ code: "answer_model_unavailable" });
    expect(session.usage.calls).toBe(1);
  });

  it("never runs past 150 seconds, whatever it is given", async () => {
    const session = new AnswerSession(
      models(async () => ({ value: {}, usage })),
      "answerer",
      10_000_000,
    );
    expect((session as unknown as { budgetMs: number }).budgetMs).toBe(150_000);
  });

  it("asks twice at most per step, and counts a failed call as an estimate", async () => {
    let calls = 0;
    const session = new AnswerSession(
      models(async () => {
        calls++;
        throw new ModelOutputError(context, "not JSON");
      }),
      "answerer",
      10_000,
    );
    await expect(session.answer("q", evidence)).rejects.toMatchObject({ code: "answer_model" });
    expect(calls).toBe(2);
    expect(session.usage).toMatchObject({ calls: 2, estimated: true });
  });

  it("sums the usage of the calls that answered", async () => {
    const replies = [
      { value: { query: "terms" }, usage },
      { value: { answer: "x", citations: ["A"], gaps: [] }, usage: { ...usage, estimated: true } },
    ];
    const session = new AnswerSession(
      models(async () => replies.shift() as JsonResult),
      "answerer",
      10_000,
    );
    expect(await session.rewrite("q", 100)).toBe("terms");
    expect(await session.answer("q", evidence)).toEqual({ answer: "x", citations: ["a"], gaps: [] });
    expect(session.usage).toEqual({ prompt_tokens: 10, completion_tokens: 4, calls: 2, estimated: true });
  });
});
