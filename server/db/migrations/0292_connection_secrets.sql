-- Connection secrets are sealed at rest by the data API's write hook
-- (server/backend/connections/connection-secrets.ts): whole values as 'lookout:enc:v1:…', and the
-- secret parts of a url in place as 'lookout~enc~v1~<env|db>~<base64url>~'. Readers who may not
-- edit a connection see those parts as '***'; sending such a masked url or a '***' property back
-- must keep the sealed value, as 0007's trigger already does for username, password and certificate.
CREATE OR REPLACE FUNCTION connections_keep_masked() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.username = '***' THEN NEW.username := OLD.username; END IF;
  IF NEW.password = '***' THEN NEW.password := OLD.password; END IF;
  IF NEW.certificate = '***' THEN NEW.certificate := OLD.certificate; END IF;
  IF NEW.url IS DISTINCT FROM OLD.url AND OLD.url IS NOT NULL AND OLD.url LIKE '%lookout~enc~v1~%'
     AND NEW.url = regexp_replace(OLD.url, 'lookout~enc~v1~(env|db)~[A-Za-z0-9_-]+~', '***', 'g') THEN
    NEW.url := OLD.url;
  END IF;
  IF jsonb_typeof(NEW.properties) = 'object' AND jsonb_typeof(OLD.properties) = 'object' THEN
    NEW.properties := (
      SELECT coalesce(jsonb_object_agg(entry.key,
               CASE WHEN entry.value = '"***"'::jsonb AND OLD.properties ? entry.key THEN OLD.properties -> entry.key ELSE entry.value END),
             '{}'::jsonb)
      FROM jsonb_each(NEW.properties) AS entry
    );
  END IF;
  RETURN NEW;
END
$$;
