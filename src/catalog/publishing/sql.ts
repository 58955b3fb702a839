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

/** Every install of the workspace with its files, oldest first, as one JSON array. */
export const CATALOG_INSTALLS = `
  SELECT COALESCE(json_agg(x ORDER BY x.installed_at, x.id), '[]')::text AS installs
  FROM (SELECT id, package, catalog_hash, files, hashes, active, installed_at
        FROM catalog_installs WHERE workspace_id = $1) x`;

/** An export's installs ($2, a JSON array as CATALOG_INSTALLS reads them) restored into the workspace $1 as they were. */
export const RESTORE_INSTALLS = `
  INSERT INTO catalog_installs (workspace_id, id, package, catalog_hash, files, hashes, active, installed_at)
  SELECT $1, p.id, p.package, p.catalog_hash, p.files, p.hashes, p.active, p.installed_at
  FROM jsonb_populate_recordset(NULL::catalog_installs, $2::jsonb) p`;
