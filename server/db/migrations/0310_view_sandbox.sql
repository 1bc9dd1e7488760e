-- Custom views run their authors' merge and panel SQL over per-query temporary tables. That SQL
-- runs as this role, which holds no privilege on any table: it reads only the temporary tables
-- granted to it for one evaluation (server/backend/views/view-sql.ts). A database user that may
-- not create roles still migrates; view SQL then runs read-only without the role.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lookout_view_reader') THEN
    CREATE ROLE lookout_view_reader NOLOGIN;
  END IF;
  EXECUTE format('GRANT lookout_view_reader TO %I', current_user);
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'lookout_view_reader cannot be created: view SQL runs read-only without a sandbox role';
END $$;
