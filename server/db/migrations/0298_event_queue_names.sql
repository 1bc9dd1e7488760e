-- The event queue status page (/settings/event-queue-status) shows one row per event name.
-- event_queue_summary groups by (name, event_id) as the reference has it (data-model §13 item
-- 14), which is about one row per event, so this is the per-name rollup over the whole queue
-- (failed_events only covers failures of the last 7 days).
CREATE VIEW event_queue_name_summary AS
SELECT
  name,
  count(*) AS pending,
  count(*) FILTER (WHERE error IS NOT NULL) AS failed,
  min(created_at) AS oldest,
  round(avg(coalesce(attempts, 0)), 2) AS average_attempts,
  max(last_attempt) AS last_attempt,
  (array_agg(error ORDER BY last_attempt DESC NULLS LAST) FILTER (WHERE error IS NOT NULL))[1] AS last_error
FROM event_queue
GROUP BY name;
