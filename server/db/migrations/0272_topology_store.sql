-- The topology store's own state (issue 15), beside the topology tables of the data model and
-- outside the API (schema lookout).

-- A hash of everything a topology run writes into a component row (its columns, parent, path and
-- rolled-up health), so a re-run finds its unchanged components in one read and writes nothing.
CREATE TABLE lookout.component_hashes (
  component_id uuid PRIMARY KEY REFERENCES components (id) ON DELETE CASCADE,
  hash text NOT NULL
);

-- components' UNIQUE (topology_id, type, name, parent_id) never fires for a root (parent_id is
-- NULL and NULLs differ), so two stores of one topology racing could create its root twice.
CREATE UNIQUE INDEX components_topology_root_key ON components (topology_id, type, name)
  WHERE parent_id IS NULL AND topology_id IS NOT NULL AND type IS NOT NULL;
