-- What every console page's shell shows (whoami's roles and permissions, feature flags, the
-- sidebar's views, the user's name) is kept in memory for a few seconds per session
-- (server/gateway/shared-data-cache.ts). A write to any table behind it announces itself on
-- channel `lookout_shared_data`, so every console process forgets what it kept, whichever path
-- (API, RPC, plain SQL, another process) made the write. One notice per statement: the
-- listeners forget everything, so which rows changed does not matter.
CREATE FUNCTION lookout.notify_shared_data() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('lookout_shared_data', TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME);
  RETURN NULL;
END
$$;

DO $$
DECLARE
  target text;
BEGIN
  FOREACH target IN ARRAY ARRAY[
    'public.people', 'public.teams', 'public.team_members', 'public.permissions',
    'public.permission_groups', 'public.casbin_rule', 'public.properties', 'public.views',
    'identity.identities', 'lookout.inactive_people'
  ] LOOP
    EXECUTE format(
      'CREATE TRIGGER shared_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %s
         FOR EACH STATEMENT EXECUTE FUNCTION lookout.notify_shared_data()',
      target
    );
  END LOOP;
END
$$;
