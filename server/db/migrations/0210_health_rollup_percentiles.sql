-- Latency percentiles in the hourly and daily check rollups (issue 13 item 4,
-- docs/decisions/011-health-summary-from-rollups.md): the health summary reads a window's
-- p99/p97/p95 from these columns instead of sorting every run in the window.
--
-- An hourly bucket holds the exact nearest-rank percentiles (percentile_disc) of its runs,
-- recomputed from the raw rows for the buckets a statement touched, in the writer's transaction
-- (the same statement-level triggers as 0140). A daily bucket holds the run-weighted mean of its
-- hours' percentiles: percentiles do not add up, so a day is estimated from its hours rather than
-- re-sorting a day of runs on every write. Deleting raw rows (retention) leaves both alone.

ALTER TABLE check_statuses_1h ADD COLUMN p99 integer, ADD COLUMN p97 integer, ADD COLUMN p95 integer;
ALTER TABLE check_statuses_1d ADD COLUMN p99 integer, ADD COLUMN p97 integer, ADD COLUMN p95 integer;

-- Recomputes the percentiles of the given (check_id, hourly bucket) pairs and of their days.
CREATE FUNCTION lookout.check_rollup_percentiles(touched jsonb) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF touched IS NULL THEN RETURN; END IF;
  WITH t AS (
    SELECT DISTINCT x.check_id, x.bucket FROM jsonb_to_recordset(touched) AS x(check_id uuid, bucket timestamptz)
  ), p AS (
    SELECT t.check_id, t.bucket, percentile_disc(ARRAY[0.99, 0.97, 0.95]) WITHIN GROUP (ORDER BY s.duration) AS p
    FROM t JOIN check_statuses s ON s.check_id = t.check_id AND s.time >= t.bucket AND s.time < t.bucket + interval '1 hour'
    GROUP BY t.check_id, t.bucket
  )
  UPDATE check_statuses_1h r SET p99 = p.p[1], p97 = p.p[2], p95 = p.p[3]
  FROM p WHERE r.check_id = p.check_id AND r.created_at = p.bucket;

  WITH d AS (
    SELECT DISTINCT x.check_id, date_trunc('day', x.bucket, 'UTC') AS day
    FROM jsonb_to_recordset(touched) AS x(check_id uuid, bucket timestamptz)
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
END
$$;

-- As in 0140, plus the percentiles of the buckets the deltas touched.
CREATE OR REPLACE FUNCTION lookout.check_rollup_add(hourly jsonb) RETURNS void
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
  PERFORM lookout.check_rollup_percentiles(hourly);
END
$$;

-- As in 0140, plus the percentiles of every bucket rebuilt.
CREATE OR REPLACE FUNCTION lookout.check_rollups_refresh(since timestamptz DEFAULT NULL) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  hourly integer;
  daily integer;
  touched jsonb;
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

  -- Only buckets whose raw rows are all still there: a pruned one keeps what it had.
  SELECT jsonb_agg(jsonb_build_object('check_id', r.check_id, 'bucket', r.created_at)) INTO touched
  FROM check_statuses_1h r
  WHERE (since IS NULL OR r.created_at >= date_trunc('hour', since, 'UTC'))
    AND r.total = (SELECT count(*) FROM check_statuses s
                   WHERE s.check_id = r.check_id AND s.time >= r.created_at AND s.time < r.created_at + interval '1 hour');
  PERFORM lookout.check_rollup_percentiles(touched);
  RETURN hourly + daily;
END
$$;

-- Backfill the rows written before these columns existed.
SELECT lookout.check_rollups_refresh(NULL);

-- The summary reads every check's buckets for a range of hours or days: the index carries the
-- columns it reads (the average duration no longer among them).
DROP INDEX check_statuses_1h_created_at_idx;
DROP INDEX check_statuses_1d_created_at_idx;
CREATE INDEX check_statuses_1h_created_at_idx ON check_statuses_1h (created_at) INCLUDE (check_id, total, passed, failed, p99, p97, p95);
CREATE INDEX check_statuses_1d_created_at_idx ON check_statuses_1d (created_at) INCLUDE (check_id, total, passed, failed, p99, p97, p95);
