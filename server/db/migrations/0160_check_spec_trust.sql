-- Issue 10: which canary specs may reach the server's own and link-local addresses. A row says
-- "this exact spec content (md5 of its jsonb text) was written by someone holding the exec
-- permission" — or by the server itself (`server`: seeds, imports, in-process writes). The
-- engine re-checks the writer's exec grant at run time, so a writer who loses it loses the
-- trust too; a spec nobody trusted (an editor's, or an admin's spec an editor changed) has a
-- different hash and no row. Kept in the lookout schema so the data API never exposes it.
CREATE TABLE lookout.check_spec_trust (
  spec_hash text NOT NULL,
  -- A person id, or 'server'.
  trusted_by text NOT NULL,
  -- How the writer authenticated and the roles that credential itself implied (the bootstrap
  -- token is admin by construction), so the run-time re-check judges the same subject.
  via text,
  roles text[] NOT NULL DEFAULT '{}',
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (spec_hash, trusted_by)
);
