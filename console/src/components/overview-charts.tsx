// The overview's charts, drawn with uPlot (bundled with the console, no CDN) from the API: records
// written per UTC day (GET /workspace/activity), jobs by state now (GET /workspace) and the
// enrichment lag, sampled from GET /workspace every few seconds while the page is shown. Each chart
// has its numbers as a table too, for screen readers and for copying.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { api } from "../api";
import type { WorkspaceActivity, WorkspaceInfo } from "../types";
import { LoadStatus, Section } from "./common";
import { DataTable } from "./data-table";
import { LIVE_RELOAD_MS, type Loaded, useApi } from "./use-api";

const HEIGHT = 180;

/** A uPlot chart in a box as wide as its container, redrawn when the data changes. */
function Chart(props: {
  label: string;
  options: Omit<uPlot.Options, "width" | "height">;
  data: uPlot.AlignedData;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setWidth(Math.floor(element.clientWidth)));
    observer.observe(element);
    setWidth(Math.floor(element.clientWidth));
    return () => observer.disconnect();
  }, []);
  useEffect(() => {
    const element = box.current;
    if (!element || width === 0) return;
    const plot = new uPlot({ ...props.options, width, height: HEIGHT }, props.data, element);
    return () => plot.destroy();
  }, [props.options, props.data, width]);
  return <div class="chart" ref={box} role="img" aria-label={props.label} data-testid="chart" />;
}

const bars = uPlot.paths.bars?.({ size: [0.7, 40] });
const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;

function RecordsPerDay(props: { activity: WorkspaceActivity }) {
  const { days } = props.activity;
  const [data, options] = useMemo(() => {
    const x = days.map((d) => dayMs(d.day));
    const written = days.map((d) => d.records - d.derived);
    const derived = days.map((d) => d.derived);
    const opts: Omit<uPlot.Options, "width" | "height"> = {
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      series: [
        {},
        {
          label: "written",
          stroke: "#2457c5",
          fill: "rgba(36, 87, 197, 0.35)",
          paths: bars,
          points: { show: false },
        },
        {
          label: "derived",
          stroke: "#7c5cc4",
          fill: "rgba(124, 92, 196, 0.35)",
          paths: bars,
          points: { show: false },
        },
      ],
      axes: [{}, { size: 40 }],
    };
    return [[x, written, derived] as uPlot.AlignedData, opts];
  }, [days]);
  return (
    <>
      <Chart
        label={`Records written per day over the last ${days.length} days`}
        options={options}
        data={data}
      />
      <details>
        <summary>The numbers</summary>
        <DataTable
          label="Records per day"
          columns={["Day (UTC)", { label: "Written", num: true }, { label: "Derived", num: true }]}
        >
          {days.map((d) => (
            <tr key={d.day}>
              <td>{d.day}</td>
              <td class="num">{d.records - d.derived}</td>
              <td class="num">{d.derived}</td>
            </tr>
          ))}
        </DataTable>
      </details>
    </>
  );
}

function JobsNow(props: { jobs: Record<string, number> }) {
  const states = Object.keys(props.jobs);
  const key = states.map((s) => props.jobs[s]).join(",");
  const [data, options] = useMemo(() => {
    const opts: Omit<uPlot.Options, "width" | "height"> = {
      scales: {
        x: { time: false, range: [-0.5, states.length - 0.5] },
        y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
      },
      series: [
        {},
        {
          label: "jobs",
          stroke: "#2457c5",
          fill: "rgba(36, 87, 197, 0.35)",
          paths: bars,
          points: { show: false },
        },
      ],
      axes: [
        {
          values: (_u, splits) => splits.map((i) => states[i] ?? ""),
          splits: () => states.map((_, i) => i),
          rotate: -35,
          size: 64,
        },
        { size: 40 },
      ],
    };
    return [[states.map((_, i) => i), states.map((s) => props.jobs[s] ?? 0)] as uPlot.AlignedData, opts];
  }, [key]);
  return (
    <Chart
      label={`Jobs by state now: ${states.map((s) => `${s} ${props.jobs[s]}`).join(", ")}`}
      options={options}
      data={data}
    />
  );
}

/** Samples of the enrichment lag (the oldest unready record's age), one per refresh, at most an hour's. */
function useLagSamples(workspace: Loaded<WorkspaceInfo>): [number[], number[]] {
  const [samples, setSamples] = useState<[number[], number[]]>([[], []]);
  useEffect(() => {
    const w = workspace.data;
    if (!w) return;
    const now = Date.now() / 1000;
    const lag = w.oldest_unready_at ? Math.max(0, now - Date.parse(w.oldest_unready_at) / 1000) : 0;
    setSamples(([t, v]) => [[...t, now].slice(-720), [...v, lag].slice(-720)]);
  }, [workspace.data]);
  return samples;
}

function EnrichmentLag(props: { workspace: Loaded<WorkspaceInfo> }) {
  const [times, lags] = useLagSamples(props.workspace);
  const [data, options] = useMemo(() => {
    const opts: Omit<uPlot.Options, "width" | "height"> = {
      // At least the last minute across, however few samples there are yet.
      scales: {
        x: { time: true, range: (_u, min, max) => [Math.min(min, max - 60), max] },
        y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
      },
      series: [{}, { label: "lag (s)", stroke: "#b42318", width: 2 }],
      axes: [{}, { size: 40 }],
    };
    return [[times, lags] as uPlot.AlignedData, opts];
  }, [times.length]);
  const latest = lags.at(-1);
  return (
    <>
      <p class="muted" data-testid="lag-now">
        {latest === undefined
          ? "Sampling…"
          : latest === 0
            ? "Nothing waits for enrichment."
            : `The oldest record waiting for enrichment was written ${Math.round(latest)} s ago.`}{" "}
        Sampled every {LIVE_RELOAD_MS / 1000} s while this page is shown.
      </p>
      {/* A line needs two samples: the second comes with the next refresh. */}
      {times.length >= 2 ? (
        <Chart
          label="Enrichment lag in seconds, sampled while the page is shown"
          options={options}
          data={data}
        />
      ) : null}
    </>
  );
}

export function OverviewCharts(props: { workspace: Loaded<WorkspaceInfo> }) {
  const activity = useApi(
    (signal) => api<WorkspaceActivity>("GET", "/workspace/activity", { query: { days: 30 }, signal }),
    [],
  );
  const w = props.workspace.data;
  return (
    <div class="grid charts">
      <Section title="Records written per day (30 days, UTC)">
        <LoadStatus of={activity} />
        {activity.data ? <RecordsPerDay activity={activity.data} /> : null}
      </Section>
      <Section title="Jobs by state now">{w ? <JobsNow jobs={w.counts.jobs} /> : null}</Section>
      <Section title="Enrichment lag">
        <EnrichmentLag workspace={props.workspace} />
      </Section>
    </div>
  );
}
