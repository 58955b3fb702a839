// The workspace a request or a job acts in, as every domain receives it. A type of its own, low in
// the graph: catalog, records, derivations and the shells take it without importing the
// workspaces module (which reads keys and so sits above the catalog).
export interface Workspace {
  id: string;
  name: string;
}
