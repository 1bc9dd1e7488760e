-- The catalog's changes of a set of items (an item and what it reaches, recursive depth 5) read
-- each item's newest changes by (config_id, created_at): carrying the change's id and type in the
-- index lets the page, its total and its per-type summary come from the index alone, without a
-- heap read per change (bench/catalog, docs/decisions/021).
CREATE INDEX config_changes_config_id_created_at_cover_idx ON config_changes (config_id, created_at DESC) INCLUDE (id, change_type);
DROP INDEX config_changes_config_id_created_at_idx;
