-- One HNSW graph node per distinct vector of a workspace's space (docs/scaling.md, "Vector search
-- among tenants"). Records whose embedded text is the same share one vector; as graph nodes at
-- distance zero from one another they link mostly to one another, and a walk that enters such a
-- cluster may find nothing beyond it. So of the rows of a workspace's space that hold the same
-- vector (grouped by vhash, an md5 of the vector), one is the lead, the only one
-- the spaces' HNSW indexes hold; a walk expands each lead it reaches to its copies. Rows stored
-- before this migration are each their own lead (vhash null), as are rows of the exact layout.
ALTER TABLE embeddings ADD COLUMN lead boolean NOT NULL DEFAULT true;
ALTER TABLE embeddings ADD COLUMN vhash uuid;
-- One lead per vector: a writer of a copy finds the lead here (and locks it).
CREATE UNIQUE INDEX embeddings_lead ON embeddings (workspace_id, space, vhash) WHERE lead;
-- A walk's expansion of a lead, and an erasure's promotion of a copy when it erases the lead.
CREATE INDEX embeddings_copies ON embeddings (workspace_id, space, vhash, seq) WHERE NOT lead;
