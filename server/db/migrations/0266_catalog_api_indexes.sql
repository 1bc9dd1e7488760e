-- Indexes for the catalog API at 100,000 items and 1,000,000 changes (bench/catalog,
-- docs/decisions/021).
--
-- Relationship walks (config_relationships_recursive) read only the far end and the relation of
-- each live edge: covering the partial indexes makes every step an index-only scan.
CREATE INDEX config_relationships_live_out_idx ON config_relationships (config_id) INCLUDE (related_id, relation) WHERE deleted_at IS NULL;
CREATE INDEX config_relationships_live_in_idx ON config_relationships (related_id) INCLUDE (config_id, relation) WHERE deleted_at IS NULL;
DROP INDEX config_relationships_config_id_idx;
DROP INDEX config_relationships_related_id_idx;

-- The summary counts changes per item within a window (changes.since): the window's index
-- carries the item, so the count never reads the change rows themselves.
CREATE INDEX config_changes_created_at_config_id_idx ON config_changes (created_at) INCLUDE (config_id);
DROP INDEX config_changes_created_at_idx;
