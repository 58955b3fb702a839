-- Search visibility as index lookups (issue 20). Tombstoned heads are few: the "not a retracted
-- slot" check of every search probes this partial index instead of reading heads.
CREATE INDEX heads_tombstones ON heads (workspace_id, entity, collection, key, status) WHERE tombstone;
-- Newest first within one entity: recent proposals scoped to an entity walk this index instead
-- of the workspace's whole newest-first order, filtering out every other entity.
CREATE INDEX records_entity_recent ON records (workspace_id, entity, occurred_at DESC, seq DESC);
