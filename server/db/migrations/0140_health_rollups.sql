-- Hourly and daily check rollups (data-model §4.4) kept current as statuses are written, so the
-- health summary reads one row per check and hour (or day) instead of every run in the window.
--
-- Statement-level triggers with transition tables do the upkeep: every writer (the engine's
-- result store, the seed, PostgREST writes, bulk loads) is covered, in the writer's own
-- transaction, with one grouped upsert per statement rather than one per row. Buckets start on
-- UTC hour and day boundaries whatever the session time zone, so the summary can line its
-- windows up with them. Deleting raw rows (retention) leaves the rollups alone: they are the
-- history that outlives the raw rows.

-- Adds per-bucket deltas to one rollup table. Existing buckets are updated in place (exact,
-- negative deltas included, the average kept as a running mean so a bucket never needs its raw
-- rows again); new buckets are inserted, and a bucket a concurrent writer created meanwhile is
-- added to through ON CONFLICT.
CREATE FUNCTION lookout.check_rollup_apply(target regclass, deltas jsonb) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($sql$
    WITH d AS (
      SELECT x.check_id, x.bucket, x.n, x.passed, x.failed, x.duration_sum
      FROM jsonb_to_recordset($1) AS x(check_id uuid, bucket timestamptz, n bigint, passed bigint, failed bigint, duration_sum numeric)
    ), updated AS (
      UPDATE %1$s r SET
        duration = CASE WHEN r.total + d.n > 0 THEN round((r.duration::numeric * r.total + d.duration_sum) / (r.total + d.n))::integer ELSE 0 END,
        total = greatest(0, r.total + d.n), passed = greatest(0, r.passed + d.passed), failed = greatest(0, r.failed + d.failed)
      FROM d WHERE r.check_id = d.check_id AND r.created_at = d.bucket
      RETURNING r.check_id, r.created_at
    )
    INSERT INTO %1$s AS r (check_id, created_at, duration, total, passed, failed)
    SELECT d.check_id, d.bucket, round(d.duration_sum / d.n)::integer, d.n, greatest(0, d.passed), greatest(0, d.failed)
    FROM d
    WHERE d.n > 0 AND NOT EXISTS (SELECT 1 FROM updated u WHERE u.check_id = d.check_id AND u.created_at = d.bucket)
    ON CONFLICT (check_id, created_at) DO UPDATE SET
      duration = round((r.duration::numeric * r.total + EXCLUDED.duration::numeric * EXCLUDED.total) / (r.total + EXCLUDED.total))::integer,
      total = r.total + EXCLUDED.total, passed = r.passed + EXCLUDED.passed, failed = r.failed + EXCLUDED.failed
  $sql$, target) USING deltas;
END
$$;

-- Groups a statement's rows (as signed deltas) per check and UTC hour and day, then applies them.
CREATE FUNCTION lookout.check_rollup_add(hourly jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  daily jsonb;
BEGIN
  IF hourly IS NULL THEN RETURN; END IF;
  SELECT jsonb_agg(g) INTO daily FROM (
    SELECT x.check_id, date_trunc('day', x.bucket, 'UTC') AS bucket, sum(x.n) AS n, sum(x.passed) AS passed,
           sum(x.failed) AS failed, sum(x.duration_sum) AS duration_sum
    FROM jsonb_to_recordset(hourly) AS x(check_id uuid, bucket timestamptz, n bigint, passed bigint, failed bigint, duration_sum numeric)
    GROUP BY 1, 2) g;
  PERFORM lookout.check_rollup_apply('check_statuses_1h'::regclass, hourly);
  PERFORM lookout.check_rollup_apply('check_statuses_1d'::regclass, daily);
END
$$;

CREATE FUNCTION lookout.check_statuses_rollup_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  deltas jsonb;
BEGIN
  SELECT jsonb_agg(g) INTO deltas FROM (
    SELECT n.check_id, date_trunc('hour', n.time, 'UTC') AS bucket, count(*) AS n,
           count(*) FILTER (WHERE n.status) AS passed, count(*) FILTER (WHERE NOT n.status) AS failed,
           coalesce(sum(n.duration), 0) AS duration_sum
    FROM inserted n GROUP BY 1, 2) g;
  PERFORM lookout.check_rollup_add(deltas);
  RETURN NULL;
END
$$;

-- An update that changes status, duration or time moves a run between buckets or outcomes:
-- the old rows come off and the new ones go on. Updates that only flip is_pushed cancel out.
CREATE FUNCTION lookout.check_statuses_rollup_update() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  deltas jsonb;
BEGIN
  SELECT jsonb_agg(g) INTO deltas FROM (
    SELECT check_id, bucket, sum(n) AS n, sum(passed) AS passed, sum(failed) AS failed, sum(duration_sum) AS duration_sum
    FROM (
      SELECT o.check_id, date_trunc('hour', o.time, 'UTC') AS bucket, -1 AS n,
             CASE WHEN o.status THEN -1 ELSE 0 END AS passed, CASE WHEN NOT o.status THEN -1 ELSE 0 END AS failed,
             -coalesce(o.duration, 0) AS duration_sum
      FROM old_rows o
      UNION ALL
      SELECT n.check_id, date_trunc('hour', n.time, 'UTC'), 1,
             CASE WHEN n.status THEN 1 ELSE 0 END, CASE WHEN NOT n.status THEN 1 ELSE 0 END, coalesce(n.duration, 0)
      FROM new_rows n) x
    GROUP BY check_id, bucket
    HAVING sum(n) <> 0 OR sum(passed) <> 0 OR sum(failed) <> 0 OR sum(duration_sum) <> 0) g;
  PERFORM lookout.check_rollup_add(deltas);
  RETURN NULL;
END
$$;

CREATE TRIGGER check_statuses_rollup_insert AFTER INSERT ON check_statuses
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION lookout.check_statuses_rollup_insert();
CREATE TRIGGER check_statuses_rollup_update AFTER UPDATE ON check_statuses
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lookout.check_statuses_rollup_update();

-- Rebuilds the rollup buckets from the raw rows from `since` on (everything when null). A bucket
-- whose raw rows were partly pruned keeps its larger, older figures. Returns the buckets written.
CREATE FUNCTION lookout.check_rollups_refresh(since timestamptz DEFAULT NULL) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  hourly integer;
  daily integer;
BEGIN
  INSERT INTO check_statuses_1h AS r (check_id, created_at, duration, total, passed, failed)
  SELECT s.check_id, date_trunc('hour', s.time, 'UTC'), coalesce(round(avg(s.duration)), 0)::integer, count(*),
         count(*) FILTER (WHERE s.status), count(*) FILTER (WHERE NOT s.status)
  FROM check_statuses s
  WHERE since IS NULL OR s.time >= date_trunc('hour', since, 'UTC')
  GROUP BY 1, 2
  ON CONFLICT (check_id, created_at) DO UPDATE SET duration = EXCLUDED.duration, total = EXCLUDED.total,
    passed = EXCLUDED.passed, failed = EXCLUDED.failed
  WHERE r.total <= EXCLUDED.total;
  GET DIAGNOSTICS hourly = ROW_COUNT;

  INSERT INTO check_statuses_1d AS r (check_id, created_at, duration, total, passed, failed)
  SELECT s.check_id, date_trunc('day', s.time, 'UTC'), coalesce(round(avg(s.duration)), 0)::integer, count(*),
         count(*) FILTER (WHERE s.status), count(*) FILTER (WHERE NOT s.status)
  FROM check_statuses s
  WHERE since IS NULL OR s.time >= date_trunc('day', since, 'UTC')
  GROUP BY 1, 2
  ON CONFLICT (check_id, created_at) DO UPDATE SET duration = EXCLUDED.duration, total = EXCLUDED.total,
    passed = EXCLUDED.passed, failed = EXCLUDED.failed
  WHERE r.total <= EXCLUDED.total;
  GET DIAGNOSTICS daily = ROW_COUNT;
  RETURN hourly + daily;
END
$$;

-- The summary finds a check's latest failure in a window with one probe; failures are rare,
-- so this index stays small.
CREATE INDEX check_statuses_failed_idx ON check_statuses (check_id, time DESC) WHERE status = false;
-- The summary's window scans (check_statuses_time_idx) fetch only these columns.
CREATE INDEX check_statuses_time_cover_idx ON check_statuses (time) INCLUDE (check_id, status, duration);
DROP INDEX check_statuses_time_idx;
-- The summary reads every check's buckets for a range of hours or days.
CREATE INDEX check_statuses_1h_created_at_idx ON check_statuses_1h (created_at) INCLUDE (check_id, duration, total, passed, failed);
CREATE INDEX check_statuses_1d_created_at_idx ON check_statuses_1d (created_at) INCLUDE (check_id, duration, total, passed, failed);

-- Backfill: rows written before the triggers existed.
SELECT lookout.check_rollups_refresh(NULL);
