// A small catalog with artifacts: notes (events) and facts (keyed) as in catalog-files.ts, a
// structured view over notes, a snapshot target and learning_signals.
import type { LightMyRequestResponse } from "fastify";
import { createTestApp, type TestApp } from "./app.js";
import { COLLECTIONS_YAML, MINIMAL_PACKAGE, minimalFiles } from "./catalog-files.js";

/** The snapshot target and learning_signals collections, as YAML list items. */
export const EXTRA_COLLECTIONS = `  - name: snapshots
    version: 1
    active: true
    mode: keyed
    schema: { type: object }
    search_profile: main
  - name: learning_signals
    version: 1
    active: true
    mode: event
    schema: { type: object }
    search_profile: main
`;

export const VIEWS = `views:
  - name: top_notes
    version: 1
    active: true
    parameters:
      who: { type: string, required: true }
      min_priority: { type: integer, default: 1 }
      k: { type: integer, default: 10, minimum: 1, maximum: 50 }
    query:
      mode: structured
      k: "{{k}}"
      scope: { collections: [notes], entities: ["{{who}}"] }
      where: { priority: { gte: "{{min_priority}}" } }
      order_by: [{ field: priority, direction: desc }]
`;

export const ARTIFACTS = `artifacts:
  - name: brief
    version: 1
    active: true
    parameters:
      customer: { type: string, required: true }
      question: { type: string, default: "anything" }
      notes: { type: integer, default: 10, minimum: 1, maximum: 50 }
    blocks:
      facts: { entity: "{{customer}}", collections: [facts] }
      history: { view: top_notes@1, args: { who: "{{customer}}", k: "{{notes}}" } }
    learning: { block: facts }
    snapshot: { collection: snapshots, type: brief_snapshot }
    template: |
      Brief on {{customer}} about {{question}}
      Facts:
      {{facts}}
      Notes:
      {{history}}
  - name: tiny
    version: 1
    active: true
    parameters:
      customer: { type: string, required: true }
    blocks:
      facts: { entity: "{{customer}}", collections: [facts], max_tokens: 150 }
    template: "{{facts}}"
  - name: dormant
    version: 1
    active: false
    blocks:
      facts: { entity: "x", collections: [facts] }
    template: "{{facts}}"
`;

export function artifactFiles(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  return minimalFiles({
    "collections/main.yaml": COLLECTIONS_YAML + EXTRA_COLLECTIONS,
    "views/main.yaml": VIEWS,
    "artifacts/main.yaml": ARTIFACTS,
    "packages/demo-pack.yaml": `name: demo-pack
version: 1.0.0
collections: [notes@1, facts@1, snapshots@1, learning_signals@1]
views: [top_notes@1]
artifacts: [brief@1, tiny@1, dormant@1]
search_profiles: [main]
`,
    ...overrides,
  });
}

export interface ArtifactHarness {
  t: TestApp;
  ws: { id: string; headers: { authorization: string } };
  post(url: string, payload: object): Promise<LightMyRequestResponse>;
  get(url: string): Promise<LightMyRequestResponse>;
  write(records: object[]): Promise<string[]>;
  close(): Promise<void>;
}

/** An app with one workspace on which the artifact catalog (or these files) is published. */
export async function artifactHarness(
  name: string,
  options: { files?: Record<string, string>; env?: Record<string, string> } = {},
): Promise<ArtifactHarness> {
  const t = await createTestApp({ env: options.env });
  const ws = await t.workspace(name);
  const post = (url: string, payload: object) =>
    t.app.inject({ method: "POST", url, headers: ws.headers, payload });
  const get = (url: string) => t.app.inject({ url, headers: ws.headers });
  const published = await post("/catalog", {
    package: MINIMAL_PACKAGE,
    files: options.files ?? artifactFiles(),
  });
  if (published.statusCode !== 200) throw new Error(`publishing failed: ${published.body}`);
  return {
    t,
    ws,
    post,
    get,
    async write(records) {
      const res = await post("/records", { records });
      if (res.statusCode !== 200) throw new Error(`write failed: ${res.body}`);
      return res.json().inserted.map((row: { id: string }) => row.id);
    },
    close: () => t.close(),
  };
}
