// Running a derivation's tasks through the model router, each step checked against the limits
// block before it happens (a run never passes a bound: it stops and fails `limits`):
// - max_tasks and max_llm_calls before each call (a malformed reply is asked again only while
//   calls remain for the tasks still to run); calls counts the requests the providers received,
//   the router's retries of transient failures included, and a retry is sent only while calls
//   remain for the tasks still to run;
// - max_total_tokens: the prompt is counted before the call, and the reply is capped to what the
//   budget has left (maxOutputTokens); usage the provider reports is added after;
// - max_wall_s: checked before each step, and a call still running at the deadline is abandoned.
import type { DerivationDef, DerivationTask } from "../catalog/index.js";
import {
  type JsonResult,
  ModelOutputError,
  type Models,
  ModelTransportError,
  type RequestBudget,
} from "../models/index.js";
import { withDeadline } from "../platform/deadline.js";
import { countRenderTokens } from "../search/index.js";
import { RunFailure, type Usage } from "./failure.js";
import type { ReadResult } from "./sources.js";

/** The instruction every task gets after its own prompt, so output cites the evidence ids. */
const CITE_RULE =
  "Use only the evidence below. Every output record lists in `citations` the ids (shown in brackets) of the evidence records it rests on.";

class Limits {
  readonly usage: Usage = { calls: 0, prompt_tokens: 0, completion_tokens: 0 };
  private tasks = 0;
  private readonly deadline: number;

  constructor(
    private readonly def: DerivationDef,
    startedAt: number,
  ) {
    this.deadline = startedAt + def.limits.max_wall_s * 1000;
  }

  private fail(what: string): never {
    throw new RunFailure("limits", `the next step would pass limits.${what}; the run stopped before it`);
  }

  msLeft(): number {
    const left = this.deadline - Date.now();
    if (left <= 0) this.fail(`max_wall_s (${this.def.limits.max_wall_s} s)`);
    return left;
  }

  startTask(): void {
    this.msLeft();
    if (this.tasks >= this.def.limits.max_tasks) this.fail(`max_tasks (${this.def.limits.max_tasks})`);
    this.tasks++;
  }

  callsLeft(): number {
    return this.def.limits.max_llm_calls - this.usage.calls;
  }

  /** Before a call of promptTokens: the reply's token cap, or a limits failure. */
  beforeCall(promptTokens: number): number {
    this.msLeft();
    if (this.callsLeft() <= 0) this.fail(`max_llm_calls (${this.def.limits.max_llm_calls})`);
    const left = this.def.limits.max_total_tokens - this.usage.prompt_tokens - this.usage.completion_tokens;
    // At least one token must remain for the reply.
    if (promptTokens >= left) this.fail(`max_total_tokens (${this.def.limits.max_total_tokens})`);
    return left - promptTokens;
  }

  /** The requests a call sent, counted as the run's calls. */
  sent(requests: number): void {
    this.usage.calls += requests;
  }

  spend(usage: { prompt_tokens: number; completion_tokens: number }): void {
    this.usage.prompt_tokens += usage.prompt_tokens;
    this.usage.completion_tokens += usage.completion_tokens;
    if (this.usage.prompt_tokens + this.usage.completion_tokens > this.def.limits.max_total_tokens) {
      throw new RunFailure(
        "limits",
        `the provider reported more tokens than limits.max_total_tokens (${this.def.limits.max_total_tokens}) allows; nothing was written`,
      );
    }
  }
}

/** The task's input: the entity, the evidence by source, and earlier tasks' outputs. */
export function taskInput(entity: string, read: ReadResult, earlier: Record<string, unknown>): string {
  const sections = read.sources.map(
    (source) =>
      `## ${source.name} (${source.kind})\n${source.shownRows.length > 0 ? source.shownRows.join("\n") : "(no records)"}`,
  );
  const parts = [`Entity: ${entity}`, "# Evidence", ...sections];
  if (Object.keys(earlier).length > 0) parts.push(`# Earlier task outputs\n${JSON.stringify(earlier)}`);
  return parts.join("\n\n");
}

async function runTask(
  task: DerivationTask,
  context: {
    def: DerivationDef;
    alias: string;
    models: Models;
    input: string;
    shown: string[];
    limits: Limits;
    after: number;
  },
): Promise<unknown> {
  const { def, limits } = context;
  const prompt = `${task.with.prompt.trimEnd()}\n\n${CITE_RULE}`;
  const promptTokens = countRenderTokens(prompt) + countRenderTokens(context.input);
  for (;;) {
    const maxOutputTokens = limits.beforeCall(promptTokens);
    // The requests this call may send: what the run has left but one for each task still to run.
    const expiry = new AbortController();
    const budget: RequestBudget = {
      left: Math.max(1, limits.callsLeft() - context.after),
      sent: 0,
      signal: expiry.signal,
    };
    let result: JsonResult;
    try {
      result = await withDeadline(
        context.models.json(context.alias, {
          task: task.id,
          prompt,
          input: context.input,
          schema: task.with.output_schema,
          shown: context.shown,
          maxOutputTokens,
          budget,
        }),
        limits.msLeft(),
        () => {
          expiry.abort();
          return new RunFailure(
            "limits",
            `a model call was still running at limits.max_wall_s (${def.limits.max_wall_s} s)`,
          );
        },
      );
    } catch (error) {
      limits.sent(budget.sent);
      if (error instanceof ModelTransportError) {
        throw new RunFailure(
          "model_unavailable",
          `task ${task.id}: the model provider could not be reached (${error.message})`,
        );
      }
      if (!(error instanceof ModelOutputError)) throw error;
      // Asked again only while calls remain for every task still to run.
      if (limits.callsLeft() <= context.after) {
        throw new RunFailure(
          "model_output",
          `task ${task.id}: the model's reply was malformed or did not satisfy the task's output_schema`,
        );
      }
      continue;
    }
    limits.sent(budget.sent);
    limits.spend(result.usage);
    return result.value;
  }
}

/** Runs every task in order; returns each task's output by id, and the usage. */
export async function runTasks(run: {
  def: DerivationDef;
  alias: string;
  models: Models;
  entity: string;
  read: ReadResult;
  startedAt: number;
}): Promise<{ outputs: Record<string, unknown>; usage: Usage }> {
  const limits = new Limits(run.def, run.startedAt);
  const outputs: Record<string, unknown> = {};
  const shown = run.read.shown.map((record) => record.id);
  const tasks = run.def.tasks;
  try {
    for (const [i, task] of tasks.entries()) {
      limits.startTask();
      outputs[task.id] = await runTask(task, {
        def: run.def,
        alias: run.alias,
        models: run.models,
        input: taskInput(run.entity, run.read, outputs),
        shown,
        limits,
        after: tasks.length - i - 1,
      });
    }
  } catch (error) {
    if (error instanceof RunFailure) error.usage = limits.usage;
    throw error;
  }
  return { outputs, usage: limits.usage };
}
