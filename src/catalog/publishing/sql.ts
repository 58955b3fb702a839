/** The id of the workspace's active install (NULL when none), as a subquery; the key lookup selects it too. */
export const activeInstallSql = (workspaceId: string) =>
  `(SELECT c.id FROM catalog_installs c WHERE c.workspace_id = ${workspaceId} AND c.active)`;

export const ACTIVE_INSTALL_ID = `SELECT ${activeInstallSql("$1")} AS id`;

export const ACTIVE_INSTALL = `
  SELECT id, package, catalog_hash, files, hashes, installed_at
  FROM catalog_installs WHERE workspace_id = $1 AND active`;

export const DEACTIVATE = "UPDATE catalog_installs SET active = false WHERE workspace_id = $1 AND active";

export const INSERT_INSTALL = `
  INSERT INTO catalog_installs (workspace_id, package, catalog_hash, files, hashes, active)
  VALUES ($1, $2, $3, $4, $5, true)
  RETURNING id, installed_at`;

export const KNOWN_TEXT_CONFIGS = "SELECT cfgname FROM pg_ts_config WHERE cfgname = ANY($1::text[])";
