// The seeded workspace every console test reads: the example package plus a reviewed derivation
// (drafts to promote), customer events and facts over several entities, a topic graph, and a
// derivation run whose output cites the events.

import { exampleRequest } from "../support/example-catalog.js";
import { waitFor } from "../support/wait.js";
import type { ConsoleServer } from "./harness.js";

/**
 * A derivation over the customer events (and facts, with `facts`) that writes situation and
 * open_issues into customer_facts. Its task id is the example fake model script's
 * (examples/fake-model.yaml), so it runs offline.
 */
function summaryDerivation(d: {
  name: string;
  description: string;
  facts?: boolean;
  maxTotalTokens: number;
  /** The emitted records' type. */
  type: string;
  review?: "required";
  /** A cron schedule (its trigger is `<name>.default`). */
  cron?: string;
}): string {
  const facts = d.facts
    ? "\n      facts: { kind: current, collections: [customer_facts], allow_empty: true }"
    : "";
  const review = d.review ? `, review: ${d.review}` : "";
  const trigger = d.cron ? `    trigger: { on: cron, cron: "${d.cron}" }\n` : "";
  return `derivations:
  - name: ${d.name}
    description: ${d.description}
${trigger}    sources:
      events: { kind: changes, collections: [customer_events], max_records: 200 }${facts}
    limits:
      max_tasks: 1
      max_llm_calls: 1
      max_retrieved_records: 400
      max_visible_records: 200
      max_total_tokens: ${d.maxTotalTokens}
      max_wall_s: 60
    tasks:
      - id: summarize
        use: llm
        with:
          prompt: Summarize the account's situation and open issues, citing the records.
          output_schema:
            type: object
            properties:
              records:
                type: array
                items:
                  type: object
                  properties:
                    key: { type: string }
                    text: { type: string }
                    citations: { type: array, items: { type: string } }
                  required: [key, text, citations]
            required: [records]
    emit: { from: summarize, collection: customer_facts, type: ${d.type}, keys: [situation, open_issues]${review} }
`;
}

/** A derivation whose output waits for review, and the reviewed artifact that promotes it. */
const REVIEW_DERIVATION = summaryDerivation({
  name: "account_review",
  description: "A reviewed account summary; its output is a draft until promoted.",
  facts: true,
  maxTotalTokens: 24_000,
  type: "review",
  review: "required",
});

const REVIEW_ARTIFACT = `artifacts:
  - name: account_brief
    version: 1
    active: true
    kind: prompt
    lifecycle: reviewed
    parameters:
      customer: { type: string, required: true }
    blocks:
      facts: { entity: "{{customer}}", collections: [customer_facts] }
    template: "{{facts}}"
    candidate: { derivation: account_review, keys: [situation, open_issues] }
`;

export const ENTITIES = ["acme", "globex", "initech", "umbrella"];

const EVENTS: [string, string, string, number][] = [
  ["acme", "chat", "The invoice export to CSV fails with a timeout", 4],
  ["acme", "email", "Asked for a refund of the duplicate charge in March", 3],
  ["acme", "phone", "Billing contact changed to Dana Reyes", 2],
  ["acme", "web", "Requested single sign-on for the whole team", 2],
  ["globex", "chat", "Cannot reset the password on the mobile app", 5],
  ["globex", "email", "Wants to upgrade from pro to enterprise next quarter", 2],
  ["initech", "phone", "Reports the nightly sync duplicated every contact", 4],
  ["initech", "chat", "Thanks for the quick fix of the sync duplicates", 1],
  ["umbrella", "web", "Asked how to export the audit log", 2],
];

export interface Seeded {
  /** The customer_profile run over acme (active output citing acme's events). */
  profileRunId: string;
  /** The account_review run over globex (draft output). */
  reviewRunId: string;
  eventIds: string[];
}

/** Waits for a job to succeed (and fails on a dead or cancelled one); returns the job. */
export async function waitForJob(server: ConsoleServer, jobId: string): Promise<any> {
  return waitFor(async () => {
    const job = (await server.api("GET", `/jobs/${jobId}`)).body;
    if (job.state === "dead" || job.state === "cancelled")
      throw new Error(`job ${jobId} ${job.state}: ${job.last_error}`);
    return job.state === "succeeded" && job;
  }, 60_000);
}

async function write(server: ConsoleServer, records: object[]): Promise<string[]> {
  const res = await server.api("POST", "/records", { records });
  if (res.status !== 200) throw new Error(`write failed ${res.status}: ${JSON.stringify(res.body)}`);
  if (res.body.job_id) await waitForJob(server, res.body.job_id);
  return res.body.inserted.map((r: { id: string }) => r.id);
}

async function derive(server: ConsoleServer, name: string, entity: string): Promise<string> {
  const res = await server.api("POST", `/processors/${name}/run`, { entity });
  if (res.status !== 202) throw new Error(`run request failed ${res.status}: ${JSON.stringify(res.body)}`);
  const job = await waitForJob(server, res.body.job_id);
  return job.successful_run_id as string;
}

/** A customer's plan (customer_facts, key plan). */
const plan = (entity: string, text: string, value: string, tier: string) => ({
  collection: "customer_facts",
  entity,
  type: "fact",
  key: "plan",
  text,
  content: { value, tier },
});

/** A page of the topic graph (entity kb). */
const kbPage = (key: string, text: string, title: string) => ({
  collection: "pages",
  entity: "kb",
  type: "page",
  key,
  text,
  content: { title },
});

/** A relates_to edge between two pages of the topic graph. */
const kbEdge = (subject: string, object: string) => ({
  collection: "edges",
  entity: "kb",
  type: "edge",
  text: `${subject} relates to ${object}`,
  content: { subject, object, predicate: "relates_to" },
});

/**
 * Publishes the example package as support@<version> with one more derivation (listed after the
 * example's processors), its file, and optionally one more artifact.
 */
async function publishSupport(
  server: ConsoleServer,
  version: string,
  derivation: { name: string; file: string; yaml: string; scheduled?: boolean },
  artifact?: { ref: string; file: string; yaml: string },
): Promise<void> {
  const request = await exampleRequest();
  const manifestPath = Object.keys(request.files).find((p) => p.startsWith("packages/")) as string;
  let manifest = (request.files[manifestPath] as string)
    .replace("version: 1.0.0", `version: ${version}`)
    .replace(
      "processors: [embedder, urgency, customer_profile]",
      `processors: [embedder, urgency, customer_profile, ${derivation.name}]`,
    );
  if (derivation.scheduled) {
    manifest = manifest.replace(
      "triggers: [customer_profile.default]",
      `triggers: [customer_profile.default, ${derivation.name}.default]`,
    );
  }
  const files: Record<string, string> = { ...request.files, [derivation.file]: derivation.yaml };
  if (artifact) {
    manifest = manifest.replace(
      "artifacts: [support_brief@1]",
      `artifacts: [support_brief@1, ${artifact.ref}]`,
    );
    files[artifact.file] = artifact.yaml;
  }
  files[manifestPath] = manifest;
  const published = await server.api("POST", "/catalog", { package: `support@${version}`, files });
  if (published.status !== 200 && published.status !== 201) {
    throw new Error(`publish failed ${published.status}: ${JSON.stringify(published.body)}`);
  }
}

/** Publishes the seed package into the demo workspace and fills it; returns what tests look up. */
export async function seed(server: ConsoleServer): Promise<Seeded> {
  await publishSupport(
    server,
    "1.1.0",
    { name: "account_review", file: "derivations/review.yaml", yaml: REVIEW_DERIVATION },
    { ref: "account_brief@1", file: "artifacts/review.yaml", yaml: REVIEW_ARTIFACT },
  );

  const base = Date.parse("2026-11-01T09:00:00Z");
  const eventIds = await write(
    server,
    EVENTS.map(([entity, channel, text, priority], i) => ({
      collection: "customer_events",
      entity,
      type: "ticket",
      text,
      occurred_at: new Date(base + i * 3_600_000).toISOString(),
      content: { channel, topic: text.split(" ").slice(0, 3).join(" ").toLowerCase(), priority },
    })),
  );
  await write(server, [
    plan("acme", "Enterprise plan since 2024", "enterprise", "enterprise"),
    plan("globex", "Pro plan", "pro", "pro"),
  ]);
  // A second value of acme's plan, so its history has two entries.
  await write(server, [plan("acme", "Enterprise plan with SSO add-on", "enterprise+sso", "enterprise")]);
  await write(server, [
    kbPage("billing", "Billing and invoices", "Billing"),
    kbPage("sso", "Single sign-on setup", "SSO"),
    kbPage("sync", "Contact sync troubleshooting", "Sync"),
    kbEdge("billing", "sso"),
    kbEdge("sso", "sync"),
  ]);
  const profileRunId = await derive(server, "customer_profile", "acme");
  const reviewRunId = await derive(server, "account_review", "globex");
  return { profileRunId, reviewRunId, eventIds };
}

// ---- Worker page (test/console/worker.test.ts): a dead derivation job and its failed run ----

/**
 * Publishes the example package with fragile_digest listed, as support@<version>; a token budget
 * of 1 fails it, and `cron` schedules it.
 */
async function publishFragile(
  server: ConsoleServer,
  version: string,
  d: { maxTotalTokens: number; cron?: string },
): Promise<void> {
  const yaml = summaryDerivation({
    name: "fragile_digest",
    description: "A profile digest; with a token budget of 1 every run fails on its limits.",
    maxTotalTokens: d.maxTotalTokens,
    type: "digest",
    cron: d.cron,
  });
  await publishSupport(server, version, {
    name: "fragile_digest",
    file: "derivations/fragile.yaml",
    yaml,
    scheduled: d.cron !== undefined,
  });
}

/** Requests fragile_digest runs over the given entities and waits for their jobs to die; returns the job ids. */
async function failFragile(server: ConsoleServer, entities: string[]): Promise<string[]> {
  const jobIds = await Promise.all(
    entities.map(async (entity) => {
      const requested = await server.api("POST", "/processors/fragile_digest/run", { entity });
      if (requested.status !== 202) throw new Error(`run request failed ${requested.status}`);
      return requested.body.job_id as string;
    }),
  );
  await waitFor(async () => {
    const states = await Promise.all(
      jobIds.map(async (id) => (await server.api("GET", `/jobs/${id}`)).body.state),
    );
    if (states.includes("succeeded")) throw new Error(`a fragile_digest job succeeded: ${states}`);
    return states.every((state) => state === "dead");
  }, 60_000);
  return jobIds;
}

/**
 * Fails `count` fragile_digest runs over globex, initech and umbrella in turn (one queued job per
 * entity at a time). Not acme: once its retried run succeeded, a run seeing no newer evidence is
 * skipped.
 */
export async function failFragileRuns(server: ConsoleServer, count: number): Promise<void> {
  const entities = ENTITIES.filter((entity) => entity !== "acme");
  for (let done = 0; done < count; done += entities.length) {
    await failFragile(server, entities.slice(0, Math.min(entities.length, count - done)));
  }
}

/**
 * Publishes support@1.2.0 with fragile_digest (token budget 1) and runs it over acme: the run
 * fails on its limits and its job is dead at once (a limits failure is not retried).
 */
export async function seedDeadJob(server: ConsoleServer): Promise<{ jobId: string; runId: string }> {
  await publishFragile(server, "1.2.0", { maxTotalTokens: 1 });
  const [jobId] = (await failFragile(server, ["acme"])) as [string];
  const runs = (await server.api("GET", "/runs?processor=fragile_digest")).body.runs;
  return { jobId, runId: runs[0].id as string };
}

/** Gives fragile_digest a real token budget (support@1.3.0), so that a retried job succeeds. */
export async function fixFragileDerivation(server: ConsoleServer): Promise<void> {
  await publishFragile(server, "1.3.0", { maxTotalTokens: 24_000 });
}

/** A daily schedule: whenever its tick comes, acme's failed runs saw no newer evidence to queue. */
const FRAGILE_CRON = "0 3 * * *";

/** Schedules fragile_digest with a token budget of 1 (support@1.4.0): its runs keep failing. */
export async function scheduleFragile(server: ConsoleServer): Promise<void> {
  await publishFragile(server, "1.4.0", { maxTotalTokens: 1, cron: FRAGILE_CRON });
}

/** Gives the scheduled fragile_digest a real budget (support@1.5.0): a changed definition resumes it. */
export async function resumeFragileSchedule(server: ConsoleServer): Promise<void> {
  await publishFragile(server, "1.5.0", { maxTotalTokens: 24_000, cron: FRAGILE_CRON });
}
