-- The check engine's write path, cheaper per run with the same results (issue 13 item 6,
-- docs/decisions/018-pglite-start-and-engine-writes.md). Every stored run updates its row in
-- checks and checks_unlogged and inserts into check_statuses; on PGlite that database work is the
-- engine process's own CPU. Nothing here changes what is stored.
--
-- 1. check_statuses_check_id_time_idx (check_id, time DESC) duplicates the primary key
--    (check_id, time), which serves the same lookups scanned backwards: one index fewer to keep
--    on every insert.
DROP INDEX check_statuses_check_id_time_idx;

-- 2. The BEFORE UPDATE triggers of checks and checks_unlogged decide "did anything but
--    updated_at and is_pushed change?" by comparing the rows as columns (record equality,
--    each column's own = operator) instead of through four to_jsonb(row) conversions per row
--    (set_updated_at and reset_is_pushed, 0001). Same answers: to_jsonb keeps each column's value,
--    so two rows are jsonb-equal exactly when their columns are equal. The trigger names (and so
--    their firing order) stay; other tables keep the generic functions. TG_ARGV names the
--    optional columns a table has: 'deleted_at' (the first deletion wins, a deleted row keeps its
--    updated_at) and 'agent_id' (rows of a remote agent keep the time the agent sent).
-- reset_is_pushed (0001) for a table with is_pushed and updated_at columns.
CREATE FUNCTION lookout.row_is_pushed_reset() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  pushed boolean := NEW.is_pushed;
  stamp timestamptz := NEW.updated_at;
  same boolean;
BEGIN
  NEW.is_pushed := OLD.is_pushed;
  NEW.updated_at := OLD.updated_at;
  same := NEW IS NOT DISTINCT FROM OLD;
  NEW.is_pushed := CASE WHEN same THEN pushed ELSE false END;
  NEW.updated_at := stamp;
  RETURN NEW;
END
$$;
-- set_updated_at (0001) for a table with is_pushed and updated_at columns, plus the columns TG_ARGV names.
-- (Each optional column is read in an IF of its own: PL/pgSQL resolves every field an expression names.)
CREATE FUNCTION lookout.row_updated_at_set() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  pushed boolean := NEW.is_pushed;
  stamp timestamptz := NEW.updated_at;
  same boolean;
BEGIN
  IF 'deleted_at' = ANY (TG_ARGV) THEN
    IF OLD.deleted_at IS NOT NULL AND NEW.deleted_at IS NOT NULL AND NEW.deleted_at <> OLD.deleted_at THEN
      NEW.deleted_at := OLD.deleted_at;
    END IF;
    IF NEW.deleted_at IS NOT NULL THEN
      RETURN NEW;
    END IF;
  END IF;
  IF 'agent_id' = ANY (TG_ARGV) THEN
    IF NEW.agent_id IS NOT NULL AND NEW.agent_id <> '00000000-0000-0000-0000-000000000000' THEN
      RETURN NEW;
    END IF;
  END IF;
  NEW.is_pushed := OLD.is_pushed;
  NEW.updated_at := OLD.updated_at;
  same := NEW IS NOT DISTINCT FROM OLD;
  NEW.is_pushed := pushed;
  NEW.updated_at := CASE WHEN same THEN stamp ELSE now() END;
  RETURN NEW;
END
$$;
DROP TRIGGER checks_is_pushed ON checks;
CREATE TRIGGER checks_is_pushed BEFORE UPDATE ON checks FOR EACH ROW EXECUTE FUNCTION lookout.row_is_pushed_reset();
DROP TRIGGER checks_updated_at ON checks;
CREATE TRIGGER checks_updated_at BEFORE UPDATE ON checks FOR EACH ROW EXECUTE FUNCTION lookout.row_updated_at_set('deleted_at', 'agent_id');
DROP TRIGGER checks_unlogged_is_pushed ON checks_unlogged;
CREATE TRIGGER checks_unlogged_is_pushed BEFORE UPDATE ON checks_unlogged FOR EACH ROW EXECUTE FUNCTION lookout.row_is_pushed_reset();
DROP TRIGGER checks_unlogged_updated_at ON checks_unlogged;
CREATE TRIGGER checks_unlogged_updated_at BEFORE UPDATE ON checks_unlogged FOR EACH ROW EXECUTE FUNCTION lookout.row_updated_at_set();

-- 3. The insert rollup trigger (0140, percentiles 0210) with the same arithmetic in static SQL
--    over the transition table: the hourly and daily deltas are grouped straight from the
--    inserted rows (sums of sums, so a day's delta equals its hours' added up) instead of through
--    jsonb and check_rollup_apply's dynamic SQL, which PostgreSQL parses and plans on every call.
--    The update trigger and check_rollups_refresh keep using the 0140/0210 functions.
CREATE OR REPLACE FUNCTION lookout.check_statuses_rollup_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  WITH d AS (
    SELECT n.check_id, date_trunc('hour', n.time, 'UTC') AS bucket, count(*) AS n,
           count(*) FILTER (WHERE n.status) AS passed, count(*) FILTER (WHERE NOT n.status) AS failed,
           coalesce(sum(n.duration), 0)::numeric AS duration_sum
    FROM inserted n GROUP BY 1, 2
  ), updated AS (
    UPDATE check_statuses_1h r SET
      duration = CASE WHEN r.total + d.n > 0 THEN round((r.duration::numeric * r.total + d.duration_sum) / (r.total + d.n))::integer ELSE 0 END,
      total = greatest(0, r.total + d.n), passed = greatest(0, r.passed + d.passed), failed = greatest(0, r.failed + d.failed)
    FROM d WHERE r.check_id = d.check_id AND r.created_at = d.bucket
    RETURNING r.check_id, r.created_at
  )
  INSERT INTO check_statuses_1h AS r (check_id, created_at, duration, total, passed, failed)
  SELECT d.check_id, d.bucket, round(d.duration_sum / d.n)::integer, d.n, greatest(0, d.passed), greatest(0, d.failed)
  FROM d
  WHERE d.n > 0 AND NOT EXISTS (SELECT 1 FROM updated u WHERE u.check_id = d.check_id AND u.created_at = d.bucket)
  ON CONFLICT (check_id, created_at) DO UPDATE SET
    duration = round((r.duration::numeric * r.total + EXCLUDED.duration::numeric * EXCLUDED.total) / (r.total + EXCLUDED.total))::integer,
    total = r.total + EXCLUDED.total, passed = r.passed + EXCLUDED.passed, failed = r.failed + EXCLUDED.failed;

  WITH d AS (
    SELECT n.check_id, date_trunc('day', date_trunc('hour', n.time, 'UTC'), 'UTC') AS bucket, count(*) AS n,
           count(*) FILTER (WHERE n.status) AS passed, count(*) FILTER (WHERE NOT n.status) AS failed,
           coalesce(sum(n.duration), 0)::numeric AS duration_sum
    FROM inserted n GROUP BY 1, 2
  ), updated AS (
    UPDATE check_statuses_1d r SET
      duration = CASE WHEN r.total + d.n > 0 THEN round((r.duration::numeric * r.total + d.duration_sum) / (r.total + d.n))::integer ELSE 0 END,
      total = greatest(0, r.total + d.n), passed = greatest(0, r.passed + d.passed), failed = greatest(0, r.failed + d.failed)
    FROM d WHERE r.check_id = d.check_id AND r.created_at = d.bucket
    RETURNING r.check_id, r.created_at
  )
  INSERT INTO check_statuses_1d AS r (check_id, created_at, duration, total, passed, failed)
  SELECT d.check_id, d.bucket, round(d.duration_sum / d.n)::integer, d.n, greatest(0, d.passed), greatest(0, d.failed)
  FROM d
  WHERE d.n > 0 AND NOT EXISTS (SELECT 1 FROM updated u WHERE u.check_id = d.check_id AND u.created_at = d.bucket)
  ON CONFLICT (check_id, created_at) DO UPDATE SET
    duration = round((r.duration::numeric * r.total + EXCLUDED.duration::numeric * EXCLUDED.total) / (r.total + EXCLUDED.total))::integer,
    total = r.total + EXCLUDED.total, passed = r.passed + EXCLUDED.passed, failed = r.failed + EXCLUDED.failed;

  WITH t AS (
    SELECT DISTINCT n.check_id, date_trunc('hour', n.time, 'UTC') AS bucket FROM inserted n
  ), p AS (
    SELECT t.check_id, t.bucket, percentile_disc(ARRAY[0.99, 0.97, 0.95]) WITHIN GROUP (ORDER BY s.duration) AS p
    FROM t JOIN check_statuses s ON s.check_id = t.check_id AND s.time >= t.bucket AND s.time < t.bucket + interval '1 hour'
    GROUP BY t.check_id, t.bucket
  )
  UPDATE check_statuses_1h r SET p99 = p.p[1], p97 = p.p[2], p95 = p.p[3]
  FROM p WHERE r.check_id = p.check_id AND r.created_at = p.bucket;

  WITH d AS (
    SELECT DISTINCT n.check_id, date_trunc('day', date_trunc('hour', n.time, 'UTC'), 'UTC') AS day FROM inserted n
  ), m AS (
    SELECT d.check_id, d.day,
      round(sum(h.p99::numeric * h.total) FILTER (WHERE h.p99 IS NOT NULL) / nullif(sum(h.total) FILTER (WHERE h.p99 IS NOT NULL), 0))::integer AS p99,
      round(sum(h.p97::numeric * h.total) FILTER (WHERE h.p97 IS NOT NULL) / nullif(sum(h.total) FILTER (WHERE h.p97 IS NOT NULL), 0))::integer AS p97,
      round(sum(h.p95::numeric * h.total) FILTER (WHERE h.p95 IS NOT NULL) / nullif(sum(h.total) FILTER (WHERE h.p95 IS NOT NULL), 0))::integer AS p95
    FROM d JOIN check_statuses_1h h ON h.check_id = d.check_id AND h.created_at >= d.day AND h.created_at < d.day + interval '1 day'
    GROUP BY d.check_id, d.day
  )
  UPDATE check_statuses_1d r SET p99 = m.p99, p97 = m.p97, p95 = m.p95
  FROM m WHERE r.check_id = m.check_id AND r.created_at = m.day;
  RETURN NULL;
END
$$;
