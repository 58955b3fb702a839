-- Erasure expands the derived_from closure level by level ("which records name any of these as a
-- parent"); only derived rows have parents, so the index leaves the others out.
CREATE INDEX records_derived_from ON records USING gin (derived_from) WHERE derived_from <> '{}';
