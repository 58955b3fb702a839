import { expect, it } from "vitest";
import { PAUSE_AFTER_FAILURES } from "../../src/derivations/index.js";
import { waitFor } from "../support/wait.js";
import { type ConsoleContext, consoleSuite, noHorizontalScroll } from "./harness.js";
import {
  failFragileRuns,
  fixFragileDerivation,
  resumeFragileSchedule,
  scheduleFragile,
  seedDeadJob,
} from "./seed.js";

/** A dead derivation job and its failed run (seedDeadJob). */
let dead: { jobId: string; runId: string };
const deadJob = async ({ server }: ConsoleContext) => {
  dead = await seedDeadJob(server);
};

consoleSuite("console: worker and run pages", { setup: deadJob }, (ctx) => {
  it("lists the workspace's jobs, and keeps the state filter in the URL across a reload", async () => {
    const { page } = ctx;
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Worker" }).click();
    const jobs = page.getByRole("table", { name: "Jobs" });
    // The seed's enrichment and derivation jobs, newest first: the dead one is the newest.
    await expect.poll(() => jobs.getByRole("row").count()).toBeGreaterThan(5);
    await expect.poll(() => jobs.getByText("enrich").count()).toBeGreaterThan(0);
    await expect.poll(() => jobs.getByText("succeeded").count()).toBeGreaterThan(0);
    const deadRow = page.locator(`tr[data-job="${dead.jobId}"]`);
    await expect.poll(() => deadRow.getAttribute("class")).toContain("wk-dead");
    expect(await deadRow.textContent()).toContain("max_total_tokens");

    await page.getByLabel("State", { exact: true }).selectOption("dead");
    await expect.poll(() => new URL(page.url()).searchParams.get("state")).toBe("dead");
    await expect.poll(() => jobs.locator("tbody tr").count()).toBe(1);
    await page.reload();
    await expect.poll(() => page.getByLabel("State", { exact: true }).inputValue()).toBe("dead");
    await expect.poll(() => page.locator(`tr[data-job="${dead.jobId}"]`).count()).toBe(1);
    expect(await page.getByRole("table", { name: "Jobs" }).locator("tbody tr").count()).toBe(1);
    await page.getByLabel("Kind", { exact: true }).selectOption("enrich");
    await expect.poll(() => page.getByText("No dead enrich jobs.").count()).toBe(1);
    expect(new URL(page.url()).search).toBe("?state=dead&kind=enrich");
    await page.goBack();
    await expect.poll(() => page.locator(`tr[data-job="${dead.jobId}"]`).count()).toBe(1);
    expect(await noHorizontalScroll(page)).toBe(true);
  });

  it("retries a dead job after a confirmation naming it, and refreshes the list", async () => {
    const { page, server } = ctx;
    // The operator fixes the derivation's budget, then retries the job that died of it.
    await fixFragileDerivation(server);
    const row = page.locator(`tr[data-job="${dead.jobId}"]`);
    await row.getByRole("button", { name: /^Retry derive job/ }).click();
    const dialog = page.getByRole("dialog", { name: "Retry this dead job?" });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.textContent()).toContain(dead.jobId);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect((await server.api("GET", `/jobs/${dead.jobId}`)).body.state).toBe("dead");

    await row.getByRole("button", { name: /^Retry derive job/ }).click();
    await dialog.getByRole("button", { name: "Retry job" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("queued again");
    // The dead-jobs list was read again: the job is no longer dead.
    await expect.poll(() => row.count()).toBe(0);
    const job = await waitFor(async () => {
      const body = (await server.api("GET", `/jobs/${dead.jobId}`)).body;
      return body.state === "succeeded" && body;
    }, 30_000);
    expect(job.successful_run_id).toBeTruthy();
    await page.getByLabel("State", { exact: true }).selectOption("succeeded");
    await page.getByLabel("Kind", { exact: true }).selectOption("derive");
    const retried = page.locator(`tr[data-job="${dead.jobId}"]`);
    await expect
      .poll(() => retried.getByRole("link", { name: /^run / }).getAttribute("href"))
      .toBe(`/console/run?id=${job.successful_run_id}`);
  });

  it("lists derivation runs, filters them, and links each to its audit", async () => {
    const { page, server, seeded } = ctx;
    await page.goto(`${server.url}/console/worker`);
    const runs = page.getByRole("table", { name: "Derivation runs" });
    await expect.poll(() => runs.getByText("customer_profile").count()).toBeGreaterThan(0);
    await expect.poll(() => runs.getByText("account_review").count()).toBe(1);
    await page.getByLabel("Run status", { exact: true }).selectOption("failed");
    await expect.poll(() => runs.locator("tbody tr").count()).toBe(1);
    expect(await runs.locator("tbody tr").textContent()).toContain("fragile_digest");
    expect(await runs.locator("tbody tr").textContent()).toContain("limits");
    await page.getByLabel("Run status", { exact: true }).selectOption("");
    await page.getByLabel("Derivation", { exact: true }).fill("customer_profile");
    await page.getByRole("button", { name: "Filter runs" }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("run_processor")).toBe("customer_profile");
    await expect.poll(() => runs.locator("tbody tr").count()).toBe(1);
    await runs.getByRole("link", { name: /^run #/ }).click();
    await expect.poll(() => page.url()).toBe(`${server.url}/console/run?id=${seeded.profileRunId}`);
    await expect
      .poll(() => page.getByRole("heading", { level: 1 }).textContent())
      .toContain("Derivation run #");
  });

  it("shows a run's audit: trigger reasons, read receipt, candidate set, divergence and emitted records", async () => {
    const { page, server, seeded } = ctx;
    const run = (await server.api("GET", `/runs/${seeded.profileRunId}`)).body;
    await page.goto(`${server.url}/console/run?id=${seeded.profileRunId}`);
    const reasons = page.getByRole("table", { name: "Trigger reasons" });
    await expect.poll(() => reasons.textContent()).toContain("manual");
    const sources = page.getByRole("table", { name: "Sources read" });
    expect(await sources.textContent()).toContain("events");
    expect(await sources.textContent()).toContain("facts");
    const receipt = page.getByRole("region", { name: "Read receipt" });
    expect(await receipt.textContent()).toContain(
      `seq ${run.read_receipt.watermark_from} → ${run.read_receipt.watermark_to}`,
    );
    const covered = page.getByRole("list", { name: "Covered keys" });
    expect(await covered.textContent()).toContain("situation");
    const divergence = page.getByRole("table", { name: "Divergence" });
    for (const entry of run.content.candidate_set.divergence) {
      const row = divergence.getByRole("row").filter({ hasText: entry.key });
      expect(await row.textContent()).toContain(entry.change);
    }
    const emitted = page.getByRole("table", { name: "Emitted records" });
    expect(run.output_ids.length).toBeGreaterThan(0);
    for (const id of run.output_ids) {
      expect(await emitted.locator(`a[href="/console/record?id=${id}"]`).count()).toBe(1);
    }
    // Evidence the run saw links to its records too.
    const firstSeen = run.visible_sources[0].record_ids[0];
    expect(
      await page
        .getByRole("list", { name: /^Records visible from/ })
        .first()
        .locator(`a[href="/console/record?id=${firstSeen}"]`)
        .count(),
    ).toBe(1);
    expect(await noHorizontalScroll(page)).toBe(true);
    // The raw answer is one toggle away.
    await page.getByText("Raw JSON of this page of the run").click();
    await expect
      .poll(() => page.getByLabel("The run as GET /runs/{id} answered it").textContent())
      .toContain(run.definition_hash);
    await emitted.locator(`a[href="/console/record?id=${run.output_ids[0]}"]`).click();
    await expect.poll(() => page.url()).toBe(`${server.url}/console/record?id=${run.output_ids[0]}`);
  });

  it("shows a failed run's failure and its visible evidence, and a missing run's problem", async () => {
    const { page, server } = ctx;
    await page.setViewportSize({ width: 1024, height: 768 });
    try {
      await page.goto(`${server.url}/console/run?id=${dead.runId}`);
      await expect
        .poll(() => page.getByRole("region", { name: "Run", exact: true }).textContent())
        .toContain("max_total_tokens");
      expect(await page.getByText("The run wrote no records.").count()).toBe(1);
      expect(await noHorizontalScroll(page)).toBe(true);
      await page.goto(`${server.url}/console/run?id=00000000-0000-4000-8000-000000000000`);
      await expect.poll(() => page.getByTestId("not-found").textContent()).toContain("no run");
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it("lists backfills with their counters", async () => {
    const { page, server } = ctx;
    const started = await server.api("POST", "/backfill", {
      collection: "customer_events",
      version: 1,
      processor: "urgency",
      max_rows: 5,
    });
    expect(started.status).toBe(202);
    await page.goto(`${server.url}/console/worker`);
    const backfills = page.getByRole("table", { name: "Backfills" });
    await expect.poll(() => backfills.textContent()).toContain("customer_events@1");
    expect(await backfills.textContent()).toContain("urgency");
  });

  it("names a paused schedule above the runs, links its failed runs, and drops it once a publish resumes it", async () => {
    const { page, server } = ctx;
    // One failure short of the pause: no notice.
    await scheduleFragile(server);
    await failFragileRuns(server, PAUSE_AFTER_FAILURES - 1);
    await page.goto(`${server.url}/console/worker`);
    const runs = page.getByRole("table", { name: "Derivation runs" });
    await expect.poll(() => runs.getByText("fragile_digest").count()).toBeGreaterThan(0);
    const notice = page.getByRole("alert", { name: "Paused schedules" });
    expect(await notice.count()).toBe(0);

    await failFragileRuns(server, 1);
    await page.getByRole("button", { name: "Refresh runs" }).click();
    await expect.poll(() => notice.count()).toBe(1);
    const text = await notice.textContent();
    expect(text).toContain("fragile_digest");
    expect(text).toContain(`last ${PAUSE_AFTER_FAILURES} runs failed`);
    expect(text).toContain("limits");
    await notice.getByRole("link", { name: "Its failed runs" }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("run_processor")).toBe("fragile_digest");
    expect(new URL(page.url()).searchParams.get("run_status")).toBe("failed");
    await expect.poll(() => runs.locator("tbody tr").count()).toBe(PAUSE_AFTER_FAILURES + 1);
    expect(await noHorizontalScroll(page)).toBe(true);

    await resumeFragileSchedule(server);
    await page.reload();
    await expect.poll(() => runs.locator("tbody tr").count()).toBe(PAUSE_AFTER_FAILURES + 1);
    expect(await notice.count()).toBe(0);
  });
});
