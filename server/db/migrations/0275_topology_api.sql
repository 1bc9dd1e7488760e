-- The topology API (issue 15, http-api §2.6.4) and row-level access to components.

-- A component and its ancestors, nearest first, by parent_id (the `path` column is whatever the
-- writer put there; the parent link is what the tree is). Row-level access asks it per row: a
-- permission on a component covers its subtree. Bounded, so a parent cycle cannot spin.
CREATE FUNCTION lookout.component_lineage(component uuid) RETURNS uuid[]
LANGUAGE sql STABLE AS $$
  WITH RECURSIVE up (id, parent_id, n) AS (
    SELECT c.id, c.parent_id, 1 FROM public.components c WHERE c.id = component
    UNION ALL
    SELECT c.id, c.parent_id, up.n + 1 FROM public.components c JOIN up ON c.id = up.parent_id WHERE up.n < 64
  )
  SELECT coalesce(array_agg(id ORDER BY n), '{}') FROM up
$$;

-- The tree walk reads live children by parent: a partial index of live rows keeps deleted
-- components of past runs out of every step.
CREATE INDEX components_live_parent_idx ON components (parent_id) WHERE deleted_at IS NULL;
