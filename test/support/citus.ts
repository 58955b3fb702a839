// Test databases on a Citus cluster: each node gets the database with citus and pgvector, and
// the coordinator's copy registers the nodes. A single-node cluster (the coordinator holds the
// shards) is cloned from a template like any server; a cluster with workers cannot clone (Citus
// copies only template1 to workers), so each test file builds its own database there.
import pg from "pg";
import { databaseUrlFor } from "./urls.js";

export interface CitusNode {
  host: string;
  port: number;
}

export interface CitusCluster {
  coordinator: CitusNode;
  workers: CitusNode[];
}

/** Runs fn on a connection of its own to url. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The server URL pointing at a database of one node. */
export function nodeUrl(serverUrl: string, node: CitusNode, database: string): string {
  const url = new URL(databaseUrlFor(serverUrl, database));
  url.hostname = node.host;
  url.port = String(node.port);
  return url.toString();
}

/** The cluster DATABASE_URL's database belongs to, or undefined on a server without Citus. */
export async function citusCluster(serverUrl: string): Promise<CitusCluster | undefined> {
  return withClient(serverUrl, async (client) => {
    const { rows } = await client.query("SELECT 1 FROM pg_extension WHERE extname = 'citus'");
    if (rows.length === 0) return undefined;
    const url = new URL(serverUrl);
    const coordinator = { host: url.hostname, port: Number(url.port || 5432) };
    const { rows: workers } = await client.query<{ nodename: string; nodeport: number }>(
      "SELECT nodename, nodeport FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary' ORDER BY nodeport",
    );
    return { coordinator, workers: workers.map((w) => ({ host: w.nodename, port: w.nodeport })) };
  });
}

/** Creates `name` on every node of the cluster, with the coordinator's copy registering the rest. */
export async function createCitusDatabase(
  serverUrl: string,
  cluster: CitusCluster,
  name: string,
): Promise<void> {
  await onEveryNode(serverUrl, cluster, `CREATE DATABASE ${name}`);
  for (const node of [cluster.coordinator, ...cluster.workers]) {
    await withClient(nodeUrl(serverUrl, node, name), async (client) => {
      await client.query("CREATE EXTENSION citus");
      await client.query("CREATE EXTENSION vector");
    });
  }
  await withClient(nodeUrl(serverUrl, cluster.coordinator, name), async (client) => {
    const { host, port } = cluster.coordinator;
    await client.query("SELECT citus_set_coordinator_host($1, $2)", [host, port]);
    // Single node: the coordinator holds the shards. With workers it holds none.
    if (cluster.workers.length === 0) {
      await client.query("SELECT citus_set_node_property($1, $2, 'shouldhaveshards', true)", [host, port]);
    }
    for (const worker of cluster.workers) {
      // Adding a node copies the role to it (ALTER ROLE postgres there): two test files
      // registering their databases at once collide on the worker's shared role row ("tuple
      // concurrently updated", failing citus_add_node as "failure on connection marked as
      // essential"). The statement rolls back whole, so it is retried.
      for (let attempt = 1; ; attempt++) {
        try {
          await client.query("SELECT citus_add_node($1, $2)", [worker.host, worker.port]);
          break;
        } catch (error) {
          if (attempt >= 10 || !/marked as essential|concurrently updated/.test(String(error))) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
        }
      }
    }
  });
}

/** Drops `name` from every node. */
export async function dropCitusDatabase(
  serverUrl: string,
  cluster: CitusCluster,
  name: string,
): Promise<void> {
  await onEveryNode(serverUrl, cluster, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

/** Runs a statement about databases on each node (in its `postgres` database), coordinator first. */
async function onEveryNode(serverUrl: string, cluster: CitusCluster, sql: string): Promise<void> {
  for (const node of [cluster.coordinator, ...cluster.workers]) {
    await withClient(nodeUrl(serverUrl, node, "postgres"), (client) => client.query(sql));
  }
}
